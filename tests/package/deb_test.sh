#!/usr/bin/env bash
# The Debian package as a user meets it, without touching the machine: cpack builds
# ipcbench_<version>_<arch>.deb and the .tar.gz from the build folder; the .deb's control file is
# checked, its payload unpacked with dpkg -x into a temporary root (no dpkg database, nothing
# installed system-wide), and from there ipchost --version and --list run, the man page renders,
# and `ipchost new-plugin` writes a C and a C++ plugin that build against <root>/usr with
# find_package and pass ipchost check.
# Usage: deb_test.sh <ipcbench build dir> <expected version>
set -euo pipefail
build_dir="$1"
version="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-deb-XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }

echo "== cpack (DEB and TGZ)"
(cd "$build_dir" && cpack -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
arch="$(dpkg --print-architecture)"
deb="$work/out/ipcbench_${version}_${arch}.deb"
[ -f "$deb" ] || { ls "$work/out" >&2; fail "no $deb"; }
ls "$work/out"/ipcbench-"$version"-*.tar.gz >/dev/null || fail "no .tar.gz"

echo "== control file"
control="$(dpkg-deb --field "$deb")"
echo "$control"
grep -qx "Package: ipcbench" <<<"$control" || fail "Package is not ipcbench"
grep -qx "Version: $version" <<<"$control" || fail "Version is not $version"
grep -qx "Architecture: $arch" <<<"$control" || fail "Architecture is not $arch"
grep -q "^Depends: .*libboost-program-options" <<<"$control" || fail "Depends lacks Boost.Program_options"
grep -q "^Maintainer: " <<<"$control" || fail "no Maintainer"

echo "== contents"
contents="$(dpkg-deb --contents "$deb" | awk '{print $6}')"
for path in ./usr/bin/ipchost ./usr/lib/ipcbench/plugins/ipcb-pipe.so \
  ./usr/lib/ipcbench/plugins/ipcb-shm.so ./usr/include/ipcbench/transport.h \
  ./usr/include/ipcbench/transport.hpp ./usr/share/man/man1/ipchost.1 \
  ./usr/share/bash-completion/completions/ipchost ./usr/share/doc/ipcbench/README.md \
  ./usr/share/doc/ipcbench/SDK.md ./usr/share/ipcbench/templates/c/my_transport.c \
  ./usr/share/ipcbench/templates/cpp/my_transport.cpp; do
  grep -qx "$path" <<<"$contents" || fail "the package lacks $path"
done
grep -q "^./usr/lib/.*cmake/ipcbench/ipcbenchConfig.cmake$" <<<"$contents" || fail "no CMake package"
grep -q "^./usr/lib/.*pkgconfig/ipcbench.pc$" <<<"$contents" || fail "no pkg-config file"
if grep -q "ipcbench_tests\|fixtures\|ipcb-cppkit" <<<"$contents"; then fail "test files in the package"; fi

echo "== unpacked into $work/root"
dpkg -x "$deb" "$work/root"
ipchost="$work/root/usr/bin/ipchost"
"$ipchost" --version | tee "$work/version.txt"
grep -q "^ipchost $version (plugin ABI 1\.[0-9]*)$" "$work/version.txt" || fail "--version"
"$ipchost" --list >"$work/list.txt"
for id in pipe.fifo socket.tcp mq.sysv udp.inet shm.ring; do
  grep -q "^$id " "$work/list.txt" || fail "--list of the unpacked package lacks $id"
done
# The kits built here are in the package, found from the installed ipchost, and run there.
for kit in python go java dotnet mono dotnet:pipestream mono:pipestream; do
  folder=${kit%%:*}
  [ -e "$build_dir/lib/ipcbench/kits/$folder/ipcbench-kit.json" ] || continue
  transport=pipe.fifo
  case "$kit" in *:pipestream) transport=socket.unix ;; esac
  grep -qx "./usr/lib/ipcbench/kits/$folder/ipcbench-kit.json" <<<"$contents" || fail "the package lacks the $folder kit"
  grep -q "^$kit " "$work/list.txt" || fail "--list of the unpacked package lacks the $kit kit"
  "$ipchost" -q --plugin "$transport" --mode throughput --size 64 --count 1000 --impl "receiver=$kit" \
    --format csv >"$work/kit-${kit/:/-}.csv" || fail "a run with the installed $kit kit"
done
if grep -q "__pycache__" <<<"$contents"; then fail "Python byte code in the package"; fi
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$work/root/usr/share/man/man1/ipchost.1" 2>"$work/groff.txt" || true
  [ ! -s "$work/groff.txt" ] || { cat "$work/groff.txt" >&2; fail "the man page has roff warnings"; }
fi

for lang in c cpp; do
  echo "== new-plugin --lang $lang, built against $work/root/usr"
  (cd "$work" && "$ipchost" new-plugin "deb$lang" --lang "$lang") | tee "$work/new-$lang.txt"
  grep -q "CMAKE_PREFIX_PATH=$work/root/usr" "$work/new-$lang.txt" || fail "new-plugin names another prefix"
  cmake -S "$work/deb$lang" -B "$work/deb$lang/build" -DCMAKE_PREFIX_PATH="$work/root/usr" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/deb$lang/build" >/dev/null
  "$ipchost" check --plugin-dir "$work/deb$lang/build/ipcbench-plugins" --plugin "deb$lang" \
    >"$work/check-$lang.txt" || { cat "$work/check-$lang.txt" >&2; fail "check of deb$lang"; }
  tail -n1 "$work/check-$lang.txt"
done
echo "deb_test: PASS"
