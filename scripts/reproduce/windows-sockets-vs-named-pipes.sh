#!/usr/bin/env bash
# Seed experiment, Windows: asynchronous TCP loopback sockets against named pipes between two
# 64-bit processes, one-way, 512 KiB socket writes and 256 KiB pipe writes, with CPU % and peak
# RSS of each process (the original measured 160 MB/s against 755 MB/s, 90 % and 80 % CPU, 4-5 MB
# per process that did not grow).
#
# On Windows itself, from the unpacked ZIP (cmd or PowerShell), the same two runs:
#   ipchost.exe --plugin socket.tcp --mode throughput --size 512K --duration 3
#   ipchost.exe --plugin pipe.named --mode throughput --size 256K --duration 3 --opt io=overlapped
# Here it cross-builds with mingw-w64 (scripts/windows/test.sh's build) and runs under wine:
# that shows the code paths work, and its figures say nothing about Windows.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build-windows}"
duration="${DURATION:-3}"
exe="$build/bin/ipchost.exe"
if [ ! -f "$exe" ]; then
  "$root/scripts/install-deps.sh" --windows >&2
  "$root/scripts/windows/build-deps.sh" "$root/build-win-deps" >&2
  cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-toolchain.cmake" \
    -DIPCBENCH_WINDOWS_DEPS="$root/build-win-deps" -DIPCBENCH_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$(nproc)" >&2
fi
export WINEPREFIX="${WINEPREFIX:-$build/wine-prefix}" WINEDEBUG=-all
[ -f "$WINEPREFIX/system.reg" ] || wine wineboot -i </dev/null >/dev/null 2>&1 || true
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
run() {  # wine's output goes to a file: its services would hold a pipe open
  printf '\n== %s\n$ ipchost.exe %s\n' "$1" "${*:2}"
  wine "$exe" "${@:2}" </dev/null >"$out" 2>&1 || true
  tr -d '\r' <"$out"
}
run "TCP loopback socket (Winsock), 512 KiB writes" \
  --plugin socket.tcp --mode throughput --size 512K --duration "$duration"
run "Named pipe, overlapped I/O, 256 KiB writes" \
  --plugin pipe.named --mode throughput --size 256K --duration "$duration" --opt io=overlapped
run "Named pipe, message mode, 1 MiB buffers, 256 KiB writes" \
  --plugin pipe.named --mode throughput --size 256K --duration "$duration" \
  --opt mode=message --opt buffer_size=1M
wineserver -k 2>/dev/null || true
