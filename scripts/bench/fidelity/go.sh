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
    "$here/fifo-pair.sh" "$work/fiforeader" "$3" "$4" "$5"
    ;;
  *) echo "usage: go.sh build WORK | tput WORK COUNT SIZE bufio|file" >&2; exit 2 ;;
esac
