#!/usr/bin/env bash
# Seed experiment: 1,000,000 messages of 32 bytes through one named pipe, as a count-based run
# (total ms is the time from the first to the last message at the reader), then the same count
# split over 2 and 3 writer threads on as many FIFOs (--streams).
# COUNT=N sends N messages instead (the README's way to shorten the seed runs); DURATION=S times
# S seconds per case instead of a count.
source "$(dirname "$0")/common.sh"
count="${COUNT:-1000000}"
measure=(--count "$count")
what="$count x 32 B"
if [ -n "${DURATION:-}" ]; then
  measure=(--duration "$DURATION")
  what="$DURATION s of 32 B messages"
fi
run "$what through one FIFO, one writer" \
  "$IPCHOST" --plugin pipe.fifo --mode throughput --size 32 "${measure[@]}" --warmup 0
for streams in 2 3; do
  split=("${measure[@]}")
  [ -z "${DURATION:-}" ] && split=(--count $((count / streams)))
  run "$what split over $streams FIFOs, $streams writer threads" \
    "$IPCHOST" --plugin pipe.fifo --mode throughput --size 32 --streams "$streams" \
    "${split[@]}" --warmup 0
done
