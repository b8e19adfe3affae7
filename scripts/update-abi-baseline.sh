#!/usr/bin/env bash
# Records the ABI of the current SDK header as sdk/abi/ipcbench-<major>.<minor>.abi. Run it after
# a deliberate, compatible change and an IPCB_ABI_MINOR bump; commit the new file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${IPCBENCH_TEST_BUILD_DIR:-$root/build-test}"
cmake -S "$root" -B "$build" -DIPCBENCH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target abi_probe >/dev/null
header="$root/sdk/include/ipcbench/transport.h"
major=$(awk '/#define IPCB_ABI_MAJOR/ {print $3}' "$header")
minor=$(awk '/#define IPCB_ABI_MINOR/ {print $3}' "$header")
mkdir -p "$root/sdk/abi"
out="$root/sdk/abi/ipcbench-$major.$minor.abi"
abidw --no-corpus-path --out-file "$out" "$(find "$build" -name libabi_probe.so | head -n1)"
echo "recorded $out"
