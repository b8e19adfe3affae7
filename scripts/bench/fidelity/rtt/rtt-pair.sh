#!/usr/bin/env bash
# Runs a fidelity program's request–response pair on TCP over loopback, pinned as bench.sh pins
# ipchost's latency cases (--affinity 0,1: the pinger on CPU 0, the ponger on CPU 1), and prints
# the pinger's median round trip in nanoseconds.
#   rtt-pair.sh "PROGRAM" COUNT SIZE WARMUP [EXTRA]
# PROGRAM takes `serve PORTFILE SIZE [EXTRA]` (echoes until EOF) and `ping PORT COUNT SIZE WARMUP
# [EXTRA]`, which prints "p50_ns=...".
set -euo pipefail
program="$1" count="$2" size="$3" warmup="$4" extra="${5:-}"
dir="$(mktemp -d)"
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$dir"' EXIT
# shellcheck disable=SC2086 # PROGRAM is a command line on purpose
taskset -c 1 $program serve "$dir/port" "$size" $extra &
server=$!
for _ in $(seq 1000); do [ -s "$dir/port" ] && break; sleep 0.01; done
# shellcheck disable=SC2086
taskset -c 0 $program ping "$(cat "$dir/port")" "$count" "$size" "$warmup" $extra >"$dir/out"
wait "$server" || true
server=""
sed -n 's/.*p50_ns=\([0-9]*\).*/\1/p' "$dir/out"
