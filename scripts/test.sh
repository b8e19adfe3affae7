#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole suite with ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${IPCBENCH_TEST_BUILD_DIR:-$root/build-test}"

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIPCBENCH_WERROR=ON \
      -DIPCBENCH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 300
