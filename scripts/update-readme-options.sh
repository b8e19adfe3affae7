#!/usr/bin/env bash
# Regenerates the README's option section (between the options:begin and options:end markers)
# from ipchost's option table, the one --help and the man page come from.
# Usage: scripts/update-readme-options.sh [path/to/ipchost]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ipchost="${1:-$root/build/bin/ipchost}"
[ -x "$ipchost" ] || { echo "update-readme-options: build ipchost first (scripts/run.sh --version)" >&2; exit 1; }
generated="$(mktemp)"
trap 'rm -f "$generated"' EXIT
"$ipchost" --help --format markdown >"$generated"
awk -v gen="$generated" '
  /^<!-- options:begin/ { print; getline; print; while ((getline line < gen) > 0) print line; skip = 1; next }
  /^<!-- options:end -->/ { skip = 0 }
  !skip { print }
' "$root/README.md" >"$root/README.md.new"
mv "$root/README.md.new" "$root/README.md"
echo "update-readme-options: README.md option section regenerated"
