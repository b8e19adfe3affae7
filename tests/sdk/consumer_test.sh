#!/usr/bin/env bash
# The third-party path, end to end: install ipcbench into a temporary prefix, build the SDK
# templates and the example plugins from the installed share/ipcbench using only find_package
# (and the templates once more with only pkg-config; the C++ one with clang++, whose C++14
# default the SDK must override or refuse clearly), check the versions the package claims,
# drop the plugins into a plugin folder, then run
# ipchost --list, ipchost check and a short benchmark on them with the installed ipchost.
# Usage: consumer_test.sh <ipcbench build dir> <ipcbench source dir>
set -euo pipefail
build_dir="$1"
src_dir="$2"
# The examples are real third-party transports on Debian's libzmq3-dev and libnng-dev
# (scripts/install-deps.sh --test): without them this test says so and is skipped (exit 77).
for lib in libzmq nng; do
  if ! pkg-config --exists "$lib" 2>/dev/null && ! [ -f "/usr/lib/$(uname -m)-linux-gnu/cmake/$lib/${lib}-config.cmake" ]; then
    echo "IPCBENCH-SKIPPED: $lib is not installed (apt-get install libzmq3-dev libnng-dev)"
    exit 77
  fi
done
work="$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-sdk-XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
plugins="$work/plugins"
mkdir -p "$plugins"
fail() { echo "consumer_test: FAIL: $*" >&2; exit 1; }

echo "== install into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
ipchost="$prefix/bin/ipchost"
[ -x "$ipchost" ] || fail "no ipchost installed"
"$ipchost" --list | grep "pipe.fifo" >/dev/null || fail "the installed ipchost does not find its own plugins"

# The installed SDK is complete on its own: templates and examples come from the prefix.
share="$prefix/share/ipcbench"
for project in templates/c examples/nng_pair examples/zmq_pair; do
  name="$(basename "$project")"
  echo "== build share/ipcbench/$project against the installed package"
  flags="-Wall -Wextra -Werror"
  cmake -S "$share/$project" -B "$work/build-$name" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli -DCMAKE_C_FLAGS="$flags" \
        -DCMAKE_CXX_FLAGS="$flags" >/dev/null
  cmake --build "$work/build-$name" >/dev/null
  cp "$work/build-$name"/ipcbench-plugins/*.so "$plugins/"
done

echo "== versions: the package is 1.2.x, as the ABI it ships"
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name ipcbench.pc | head -n1)")"
pkg-config --atleast-version=1.2 ipcbench || fail "pkg-config --atleast-version=1.2 ipcbench"
if pkg-config --atleast-version=1.3 ipcbench; then fail "the package claims ABI 1.3"; fi
mkdir -p "$work/needs2"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(n LANGUAGES C)\nfind_package(ipcbench 2 CONFIG REQUIRED)\n' \
  >"$work/needs2/CMakeLists.txt"
if cmake -S "$work/needs2" -B "$work/needs2/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
  fail "find_package(ipcbench 2) accepted a 1.x package"
fi

if command -v clang++ >/dev/null; then
  echo "== the C++ helper under clang++ (C++14 by default on Debian 12)"
  if clang++ -std=c++14 -fsyntax-only -I"$prefix/include" -x c++ - <<<'#include "ipcbench/transport.hpp"' \
    2>"$work/cxx14.txt"; then
    fail "transport.hpp compiled as C++14"
  fi
  grep -q "ipcbench/transport.hpp needs C++17" "$work/cxx14.txt" || { cat "$work/cxx14.txt" >&2; fail "no clear #error below C++17"; }
  # With CMake, ipcbench_add_plugin asks for C++17 itself (ipcbench::sdk_cxx).
  "$ipchost" new-plugin cppnew --lang cpp --dir "$work/cppnew" >/dev/null
  CXX=clang++ cmake -S "$work/cppnew" -B "$work/build-cpp" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >/dev/null
  cmake --build "$work/build-cpp" >/dev/null || fail "the C++ template with clang++ and find_package"
  cp "$work/build-cpp"/ipcbench-plugins/*.so "$plugins/"
  # With pkg-config, the .pc file carries the flag.
  # shellcheck disable=SC2046
  clang++ $(pkg-config --variable=cxxflags ipcbench) $(pkg-config --cflags ipcbench) -Wall -Wextra -Werror \
    -DMY_PLUGIN_NAME='"pccpp"' "$share/templates/cpp/my_transport.cpp" \
    $(pkg-config --variable=plugin_ldflags ipcbench) -o "$plugins/ipcb-pccpp.so" ||
    fail "the C++ template with clang++ and pkg-config"
fi

echo "== build the template with pkg-config only (no CMake)"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags ipcbench) -DMY_PLUGIN_NAME='"pctemplate"' \
   "$share/templates/c/my_transport.c" $(pkg-config --variable=plugin_ldflags ipcbench) \
   -o "$plugins/ipcb-pctemplate.so"

echo "== every plugin exports exactly ipcb_plugin_entry"
for so in "$plugins"/*.so; do
  exports="$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u | tr '\n' ' ')"
  [ "$exports" = "ipcb_plugin_entry " ] || fail "$so exports: $exports"
done

echo "== ipchost --list"
list="$("$ipchost" --plugin-dir "$plugins" --list)"
echo "$list"
expected="mytransport.stream nng.pair zmq.pair pctemplate.stream"
command -v clang++ >/dev/null && expected="$expected cppnew.seqpacket pccpp.seqpacket"
for id in $expected; do
  grep -q "^$id " <<<"$list" || fail "--list does not show $id"
done

echo "== ipchost check"
"$ipchost" check --plugin-dir "$plugins" --plugin "$(tr ' ' , <<<"$expected")" \
  | tee "$work/check.txt"
grep -q "^[1-9][0-9]* passed, 0 failed$" "$work/check.txt" || fail "ipchost check failed"

echo "== short benchmark"
"$ipchost" --plugin-dir "$plugins" --plugin mytransport,nng,zmq --size 64,4K --duration 0.2 \
  --warmup 0.05 --format json --output "$work/result.json"
ok=$(grep -c '"status": "ok"' "$work/result.json")
[ "$ok" -eq 12 ] || fail "expected 12 measured cases, got $ok"
"$ipchost" --plugin-dir "$plugins" --plugin zmq,nng --size 64 --mode latency --duration 0.2 \
  --warmup 0.05
echo "consumer_test: PASS"
