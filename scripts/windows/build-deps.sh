#!/usr/bin/env bash
# Prepares what the Windows (mingw-w64) build needs and Debian does not ship for mingw, once, in a
# cache folder (default: build-win-deps/ in the checkout):
#   include/   the Boost 1.81 headers (from Debian's own source package, merged into one folder)
#              and links to the header-only libraries from Debian's packages (spdlog, fmt,
#              nlohmann, Catch2), so /usr/include itself never enters the cross include path
#   lib/libboost_program_options.a   Boost.Program_options compiled with mingw-w64
# The source comes from Debian's archive through a private sources list with a deb-src line (the
# same archive the machine installs from): no other download. Usage: build-deps.sh [CACHE_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${1:-$root/build-win-deps}"
cxx="${MINGW_CXX:-x86_64-w64-mingw32-g++-posix}"
boost_source_package=boost1.81

if [ -f "$cache/lib/libboost_program_options.a" ] && [ -d "$cache/include/boost" ]; then
  echo "windows deps: ready in $cache"
  exit 0
fi
command -v "$cxx" >/dev/null || { echo "windows deps: $cxx not found (scripts/install-deps.sh --windows installs it)" >&2; exit 1; }
mkdir -p "$cache/apt/lists/partial" "$cache/src" "$cache/include" "$cache/lib" "$cache/obj"

# The archive the machine already uses, as a deb-src line.
archive="$(grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
  | head -n1 | awk '{print $2}' || true)"
archive="${archive:-http://deb.debian.org/debian}"
echo "deb-src $archive bookworm main" >"$cache/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$cache/apt/lists" -o Debug::NoLocking=1)
if ! ls "$cache"/src/${boost_source_package}_*.orig.tar.* >/dev/null 2>&1; then
  echo "windows deps: fetching the $boost_source_package source package from $archive"
  apt-get "${apt_opts[@]}" update -qq
  (cd "$cache/src" && apt-get "${apt_opts[@]}" source --download-only -qq "$boost_source_package")
fi
tarball="$(ls "$cache"/src/${boost_source_package}_*.orig.tar.* | head -n1)"
echo "windows deps: unpacking the Boost headers and Program_options sources"
rm -rf "$cache/src/boost" && mkdir -p "$cache/src/boost"
tar -xf "$tarball" -C "$cache/src/boost" --strip-components=1 --wildcards '*/libs/*/include/*' \
  '*/libs/program_options/src/*' '*/libs/config/*' 2>/dev/null ||
  tar -xf "$tarball" -C "$cache/src/boost" --strip-components=1
rm -rf "$cache/include/boost"
mkdir -p "$cache/include/boost"
for inc in "$cache"/src/boost/libs/*/include/boost "$cache"/src/boost/libs/numeric/*/include/boost; do
  [ -d "$inc" ] && cp -r "$inc"/. "$cache/include/boost/"
done

# Header-only libraries from Debian's packages, linked one by one.
for dir in spdlog fmt nlohmann catch2; do
  [ -e "/usr/include/$dir" ] && ln -sfn "/usr/include/$dir" "$cache/include/$dir"
done

echo "windows deps: compiling Boost.Program_options with $cxx"
srcs=("$cache"/src/boost/libs/program_options/src/*.cpp)
printf '%s\n' "${srcs[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  'f="{}"; "$0" -std=c++17 -O2 -DNDEBUG -I"$1/include" -c "$f" -o "$1/obj/$(basename "$f" .cpp).o"' "$cxx" "$cache"
rm -f "$cache/lib/libboost_program_options.a"
x86_64-w64-mingw32-ar rcs "$cache/lib/libboost_program_options.a" "$cache"/obj/*.o
rm -rf "$cache/src/boost" "$cache/obj"
echo "windows deps: ready in $cache"
