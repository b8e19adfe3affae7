#!/usr/bin/env bash
# Installs what is missing, builds Release, and runs the default comparison of every plugin found.
# Extra arguments go to ipchost, e.g.: scripts/run.sh --plugin pipe --format json
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${IPCBENCH_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIPCBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
exec "$build/bin/ipchost" "$@"
