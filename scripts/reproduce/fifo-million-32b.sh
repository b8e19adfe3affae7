#!/usr/bin/env bash
# Seed experiment: 1,000,000 messages of 32 bytes through one named pipe, as a count-based run
# (total ms is the time from the first to the last message at the reader).
# The 2- and 3-writer variants (2 and 3 threads over 2 and 3 FIFOs) need parallel streams
# (--streams, the measurement-depth issue); they are run below when this ipchost has it.
source "$(dirname "$0")/common.sh"
run "1,000,000 x 32 B through one FIFO, one writer" \
  "$IPCHOST" --plugin pipe.fifo --mode throughput --size 32 --count 1000000 --warmup 0
for streams in 2 3; do
  if "$IPCHOST" --help | grep -q -- '--streams'; then
    run "1,000,000 x 32 B split over $streams FIFOs, $streams writer threads" \
      "$IPCHOST" --plugin pipe.fifo --mode throughput --size 32 --streams "$streams" \
      --count $((1000000 / streams)) --warmup 0
  else
    say "$streams writers over $streams FIFOs: needs --streams (not in this ipchost yet)" ":"
  fi
done
