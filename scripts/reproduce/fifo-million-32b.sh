#!/usr/bin/env bash
# Seed experiment, the Go write-up: a C++ writer feeding a Go reader 1,000,000 messages of
# 32 bytes through 1, 2 and 3 named pipes (it measured 2,806 / 2,137 / 1,987 ms). Here ipchost's
# native (C) writer feeds ipchost's own reader and the Go kit's reader (kits/go: os.File reads
# through the runtime poller, one goroutine per FIFO) on the same FIFOs, and the table gives both
# total times (first to last message at the reader) and their ratio: how much of the write-up's
# figure is Go, how much the pipe. With 2 and 3 FIFOs the count is split over as many writer
# threads (--streams).
# COUNT=N sends N messages instead; REPEAT=N runs each case N times (median); DURATION=S times S
# seconds per case instead of a count.
source "$(dirname "$0")/common.sh"
count="${COUNT:-1000000}"
repeat="${REPEAT:-3}"
readers="native,go"
if ! "$IPCHOST" --list --format json | python3 -c \
    'import json,sys; sys.exit(0 if any(k["name"] == "go" and k["usable"] for k in json.load(sys.stdin)["kits"]) else 1)'; then
  echo "fifo-million-32b: the Go kit is not built (scripts/install-deps.sh --kits, then rebuild); native reader only" >&2
  readers="native"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for streams in 1 2 3; do
  measure=(--count $((count / streams)))
  [ -n "${DURATION:-}" ] && measure=(--duration "$DURATION")
  say "$count x 32 B over $streams FIFO(s), C writer, readers: $readers" \
    "$IPCHOST" --plugin pipe.fifo --mode throughput --size 32 --streams "$streams" \
    "${measure[@]}" --warmup 0 --repeat "$repeat" --impl "receiver=$readers"
  "$IPCHOST" -q --plugin pipe.fifo --mode throughput --size 32 --streams "$streams" \
    "${measure[@]}" --warmup 0 --repeat "$repeat" --impl "receiver=$readers" \
    --format json >"$work/$streams.json"
done
python3 - "$work" "$count" <<'PY'
import json, os, sys
work, count = sys.argv[1], int(sys.argv[2])
writeup = {1: 2806, 2: 2137, 3: 1987}
print(f"\n{count:,} x 32 B, C writer; total ms = first to last message at the reader (median of repetitions)")
print("| FIFOs | C reader ms | Go reader ms | Go / C | Go reader CPU % (outside) | write-up (C++ -> Go) ms |")
print("|---:|---:|---:|---:|---:|---:|")
for streams in (1, 2, 3):
    results = json.load(open(os.path.join(work, f"{streams}.json")))["results"]
    by = {r["receiver"]["implementation"]: r for r in results if r["status"] == "ok"}
    ms = {k: r["duration_s"] * 1000 for k, r in by.items()}
    go = ms.get("go")
    ratio = f"{go / ms['native']:.2f}" if go and ms.get("native") else "-"
    cpu = f"{by['go']['receiver']['outside_cpu_percent']:.0f}" if "go" in by else "-"
    print(f"| {streams} | {ms.get('native', 0):.0f} | {go:.0f} | {ratio} | {cpu} | {writeup[streams]} |"
          if go else f"| {streams} | {ms.get('native', 0):.0f} | - | - | - | {writeup[streams]} |")
PY
