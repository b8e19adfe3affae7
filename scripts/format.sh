#!/usr/bin/env bash
# Checks that every C and C++ file is formatted with the root .clang-format
# (`scripts/format.sh --fix` rewrites them). The frozen 1.0 header is history and stays as it was.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# Tracked files and new ones not yet added (--others without ignored build folders): a file
# written but not yet `git add`ed is checked and fixed too.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cpp' '*.hpp' |
  grep -v '/generated/' |
  grep -v '^tests/abi/v1_0/')
if [ "${1:-}" = "--fix" ]; then
  clang-format-14 -i "${files[@]}"
  exit 0
fi
if ! clang-format-14 --dry-run --Werror "${files[@]}"; then
  echo "format: files above differ from .clang-format; run scripts/format.sh --fix"
  exit 1
fi
echo "format: ${#files[@]} files formatted"
