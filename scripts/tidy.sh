#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the root) on every source file of host/ and plugins/, using the
# compile commands of a build folder (configured here if needed). Fails on any finding.
# The C++ host library is compiled as unity batches (IPCBENCH_UNITY_BUILD), and clang-tidy reads
# those batches too: each includes up to 12 of host/'s .cpp files, so the heavy headers are
# parsed once a batch instead of once a file, and every finding is still reported at its line
# in the .cpp file (HeaderFilterRegex covers host/). bugprone-suspicious-include is off for
# them: including .cpp files is what a unity batch is. The C plugins are checked file by file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${IPCBENCH_TIDY_BUILD_DIR:-$root/build-tidy}"
"$root/scripts/install-deps.sh" --test >/dev/null
cmake -S "$root" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DIPCBENCH_BUILD_TESTS=OFF \
  -DIPCBENCH_UNITY_BUILD=ON >/dev/null
# What the compile database holds: the host's unity batches (generated at configure time), the
# C plugins, and the host's files outside the library (main.cpp). The Windows-only sources are
# not in this Linux build (they need windows.h): mingw-w64 compiles them with -Werror in the
# windows stage (scripts/windows/test.sh).
mapfile -t files < <(jq -r '.[].file' "$build/compile_commands.json" |
  grep -E "^$root/(host|plugins)/|/host/CMakeFiles/ipcbench_host.dir/Unity/" | sort -u)
cd "$root"
# host/.clang-tidy adds readability-function-size (no function over 80 lines) for host/; the
# batches live in the build folder, outside host/, so the check is named for them here.
{
  printf '%s\n' "${files[@]}" | grep -vE "^$root/plugins/" |
    xargs -P "$(nproc)" -n 2 clang-tidy-14 -p "$build" --quiet \
      --checks=-bugprone-suspicious-include,readability-function-size 2>/dev/null
  printf '%s\n' "${files[@]}" | grep -E "^$root/plugins/" |
    xargs -P "$(nproc)" -n 4 clang-tidy-14 -p "$build" --quiet 2>/dev/null
} | tee "$build/tidy.log"
if grep -qE "(warning|error):" "$build/tidy.log"; then
  echo "tidy: findings above"
  exit 1
fi
# Every source file of host/ and plugins/ was in what was checked, directly or in a batch.
missing=0
while read -r source; do
  if ! grep -qF "$root/$source" <(printf '%s\n' "${files[@]}") &&
     ! grep -qsF "$root/$source" "$build"/host/CMakeFiles/ipcbench_host.dir/Unity/*.cxx; then
    echo "tidy: $source was not checked"
    missing=1
  fi
done < <(git ls-files 'host/*.cpp' 'plugins/*.c' |
         grep -vE '_windows\.c(pp)?$|/windows_api\.cpp$|^plugins/windows_common/')
[ "$missing" = 0 ] || exit 1
echo "tidy: clean (${#files[@]} translation units)"
