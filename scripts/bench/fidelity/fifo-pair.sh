#!/usr/bin/env bash
# Runs a fidelity program's FIFO reader and writer, pinned as bench.sh pins ipchost (--affinity
# 0,1: the writer on CPU 0, the reader on CPU 1), and prints the reader's bytes per second.
#   fifo-pair.sh "PROGRAM" COUNT SIZE [READER_EXTRA [WRITER_EXTRA]]
# PROGRAM takes `read PATH COUNT SIZE [READER_EXTRA]` (it makes the FIFO, or FIFOs with PATH made
# last) and `write PATH COUNT SIZE [WRITER_EXTRA]`, and its reader prints "mb_per_sec=...".
set -euo pipefail
program="$1" count="$2" size="$3" extra="${4:-}" wextra="${5:-}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086 # PROGRAM is a command line on purpose
taskset -c 1 $program read "$dir/fifo" "$count" "$size" $extra >"$dir/out" &
reader=$!
for _ in $(seq 300); do [ -p "$dir/fifo" ] && break; sleep 0.01; done
# shellcheck disable=SC2086
taskset -c 0 $program write "$dir/fifo" "$count" "$size" $wextra
wait "$reader"
sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out" | awk '{print $1 * 1e6}'
