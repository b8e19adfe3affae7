#!/usr/bin/env bash
# Each built plugin exports exactly one dynamic symbol: ipcb_plugin_entry.
set -euo pipefail
status=0
count=0
for so in "$@"; do
  count=$((count + 1))
  exports="$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u | tr '\n' ' ')"
  if [ "$exports" = "ipcb_plugin_entry " ]; then
    echo "ok   $so"
  else
    echo "FAIL $so exports: $exports"
    status=1
  fi
done
[ "$count" -gt 0 ] || { echo "no plugin given"; exit 1; }
exit $status
