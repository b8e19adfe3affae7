#!/usr/bin/env bash
# The Go fidelity program (scripts/bench/fidelity/go), built and run for scripts/bench.sh:
#   go.sh build WORK
#   go.sh tput WORK COUNT SIZE bufio|file [FIFOS]
#       S2's shape: a Go writer and a Go reader of COUNT SIZE-byte records on each of FIFOS FIFOs
#       (1: one; S2 read 1, 2 and 3 at once, a goroutine each), the reader
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
    fifos="${6:-1}"
    "$here/fifo-pair.sh" "$work/fiforeader" "$3" "$4" "$5 $fifos" "$fifos"
    ;;
  *) echo "usage: go.sh build WORK | tput WORK COUNT SIZE bufio|file [FIFOS]" >&2; exit 2 ;;
esac
