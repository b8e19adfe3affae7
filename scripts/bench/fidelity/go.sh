#!/usr/bin/env bash
# The Go fidelity program (scripts/bench/fidelity/go), built and run for scripts/bench.sh:
#   go.sh build WORK
#   go.sh tput WORK COUNT SIZE bufio|file
#       S2's shape: a Go writer and a Go reader of COUNT SIZE-byte records on a FIFO, the reader
#       on CPU 1 and the writer on CPU 0 as bench.sh pins ipchost (--affinity 0,1); prints the
#       reader's bytes per second.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="$1" work="$2"
case "$cmd" in
  build)
    mkdir -p "$work"
    (cd "$here/go" && GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOPROXY=off go build -o "$work/fiforeader" .)
    ;;
  tput)
    count="$3" size="$4" how="$5"
    dir="$(mktemp -d)"
    taskset -c 1 "$work/fiforeader" read "$dir/fifo" "$count" "$size" "$how" >"$dir/out" &
    reader=$!
    for _ in $(seq 200); do [ -p "$dir/fifo" ] && break; sleep 0.01; done
    taskset -c 0 "$work/fiforeader" write "$dir/fifo" "$count" "$size"
    wait "$reader"
    sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out" | awk '{print $1 * 1e6}'
    rm -rf "$dir"
    ;;
  *) echo "usage: go.sh build WORK | tput WORK COUNT SIZE bufio|file" >&2; exit 2 ;;
esac
