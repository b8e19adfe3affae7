#!/usr/bin/env bash
# Compares the ABI of the SDK header, as recorded from abi_probe.so by abidw, with the committed
# baseline. An incompatible change fails; a compatible one (e.g. a member appended) fails unless
# IPCB_ABI_MINOR was bumped past the baseline's minor (then record a new baseline with
# scripts/update-abi-baseline.sh).
# Usage: check_abi_baseline.sh <abi_probe.so> <source dir>
set -euo pipefail
probe="$1"
src="$2"
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
  echo "IPCBENCH-SKIPPED: abidw/abidiff are not installed (apt-get install abigail-tools)"
  exit 77
fi
header="$src/sdk/include/ipcbench/transport.h"
major=$(awk '/#define IPCB_ABI_MAJOR/ {print $3}' "$header")
minor=$(awk '/#define IPCB_ABI_MINOR/ {print $3}' "$header")
baseline=$(ls "$src"/sdk/abi/ipcbench-"$major".*.abi 2>/dev/null | sort -V | tail -n1)
[ -n "$baseline" ] || { echo "no baseline for ABI major $major in sdk/abi/"; exit 1; }
base_minor=$(basename "$baseline" .abi | sed 's/.*\.//')
current="$(mktemp)"
trap 'rm -f "$current"' EXIT
abidw --no-corpus-path --out-file "$current" "$probe"
set +e
report=$(abidiff --no-show-locs "$baseline" "$current")
rc=$?
set -e
echo "header ABI $major.$minor, baseline $(basename "$baseline"), abidiff exit $rc"
if (( rc & 1 )) || (( rc & 2 )); then
  echo "$report"
  echo "FAIL: abidiff could not compare (exit $rc)"
  exit 1
fi
if (( rc & 8 )); then
  echo "$report"
  echo "FAIL: incompatible ABI change; within major $major only appending members is allowed"
  exit 1
fi
# abidiff calls most layout changes "changes" (exit 4), not "incompatible" (exit 8). Within a
# major only appended members are allowed, so a changed, deleted or moved member is incompatible.
if (( rc & 4 )) && grep -qE "offset changed|deletion|name changed from|enumerator change|parameter.*(deleted|removed)" <<<"$report"; then
  echo "$report"
  echo "FAIL: an existing member changed, moved or was removed: incompatible within major $major"
  exit 1
fi
if (( rc & 4 )); then
  echo "$report"
  if [ "$minor" -le "$base_minor" ]; then
    echo "FAIL: the ABI changed but IPCB_ABI_MINOR is still $minor: bump it, then run"
    echo "      scripts/update-abi-baseline.sh to record sdk/abi/ipcbench-$major.$((base_minor + 1)).abi"
    exit 1
  fi
  echo "ok: compatible change with a minor bump ($base_minor -> $minor); record the new baseline"
  exit 0
fi
echo "ok: identical to the baseline"
