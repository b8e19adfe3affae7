#!/usr/bin/env bash
# Renders an ipchost HTML report to a PNG with headless Chromium, to look at it or attach it.
# Usage: scripts/report-screenshot.sh RESULTS.json [OUT.png]   (or a report.html)
# IPCHOST names the ipchost that renders a RESULTS.json (default: build/bin/ipchost of this tree,
# the Release build scripts/run.sh makes; build-test/bin/ipchost after scripts/test.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
input="$1"
out="${2:-${input%.*}.png}"
ipchost="${IPCHOST:-$root/build/bin/ipchost}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
page="$input"
if [[ "$input" == *.json ]]; then
  page="$work/report.html"
  "$ipchost" report "$input" --output "$page"
fi
chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --window-size=1000,2400 \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$page")" 2>/dev/null
echo "wrote $out"
