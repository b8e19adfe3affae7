#!/usr/bin/env bash
# Fuzzes the control-channel parser with libFuzzer (clang-14 with ASan and UBSan) for SECONDS
# (default 60), starting from the seed corpus in tests/fuzz/corpus. New inputs go to a temporary
# corpus; a crash leaves crash-* files in the build folder and fails the script.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
build="${IPCBENCH_FUZZ_BUILD_DIR:-$root/build-fuzz}"
"$root/scripts/install-deps.sh" --test
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DIPCBENCH_FUZZ=ON -DIPCBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target fuzz_control_channel -j"$(nproc)" >/dev/null
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
cd "$build"
./bin/fuzz_control_channel -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -print_final_stats=1 "$corpus" "$root/tests/fuzz/corpus" 2>&1 | tail -n 12
echo "fuzz: ${seconds} s without a crash"
