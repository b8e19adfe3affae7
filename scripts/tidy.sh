#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the root) on every source file of host/ and plugins/, using the
# compile commands of a build folder (configured here if needed). Fails on any finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${IPCBENCH_TIDY_BUILD_DIR:-$root/build-tidy}"
"$root/scripts/install-deps.sh" --test >/dev/null
cmake -S "$root" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DIPCBENCH_BUILD_TESTS=OFF >/dev/null
# The Windows-only sources are not in this Linux build's compile database (they need windows.h):
# mingw-w64 compiles them with -Werror in the windows stage (scripts/windows/test.sh).
files=$(cd "$root" && { git ls-files 'host/*.cpp' 'plugins/*.c' 2>/dev/null ||
        find host plugins -name '*.cpp' -o -name '*.c'; } |
        grep -vE '_windows\.c(pp)?$|/windows_api\.cpp$|^plugins/windows_common/')
cd "$root"
# shellcheck disable=SC2086
printf '%s\n' $files | xargs -P "$(nproc)" -n 4 clang-tidy-14 -p "$build" --quiet 2>/dev/null \
  | tee "$build/tidy.log"
if grep -qE "(warning|error):" "$build/tidy.log"; then
  echo "tidy: findings above"
  exit 1
fi
echo "tidy: clean ($(printf '%s\n' $files | wc -l) files)"
