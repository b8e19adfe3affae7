#!/usr/bin/env bash
# Every built-in transport (what `ipchost --list` finds in the build's plugin folder) has an
# expected check list in EXPECTED_DIR, so the conformance entries (one per list) check it; and
# every list names a transport that exists. A new built-in without a list fails here.
# usage: check_coverage.sh IPCHOST EXPECTED_DIR
set -uo pipefail
ipchost="$1" dir="$2"
ids="$("$ipchost" --list | awk 'NR > 1 && /^$/ { exit } NR > 1 && /^[a-z0-9]/ { print $1 }' | sort)"  # the transport table, not the kits after it
if [ -z "$ids" ]; then
  echo "coverage: ipchost --list found no transport"
  exit 1
fi
status=0
for id in $ids; do
  if [ ! -f "$dir/$id.txt" ]; then
    echo "coverage: $id has no expected check list: run 'ipchost check --plugin $id', review it,"
    echo "          and write its check names to tests/conformance/expected/$id.txt"
    status=1
  fi
done
for file in "$dir"/*.txt; do
  id="$(basename "$file" .txt)"
  [ "$id" = cplug.stream ] && continue  # the fixture plugin, from its own folder
  if ! grep -qx "$id" <<<"$ids"; then
    echo "coverage: $file names $id, which the build does not produce"
    status=1
  fi
done
[ "$status" = 0 ] && echo "coverage: $(wc -w <<<"$ids") transports, each with its check list"
exit "$status"
