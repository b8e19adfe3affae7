#!/usr/bin/env bash
# scripts/bench/side_by_side.py on two made-up bench.sh outputs: a throughput ratio whose new
# interval lies wholly below the old interval is slower, one above it faster, overlapping ones
# the same (also when the new interval misses the old median); a latency ratio that rose clear of
# its old interval is slower; a row new in the after run is new, one
# gone from it is named; a file without tables
# is refused by name.
set -euo pipefail
tool="$1/scripts/bench/side_by_side.py"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cat >"$dir/before.md" <<'MD'
### Throughput (target: ratio >= 0.95)

| transport | size | ipchost calls | ipchost MB/s | reference MB/s | ratio | meets |
|---|---:|---|---:|---:|---:|---|
| shm.ring | 1024 | send -> recv | 39006 | 66221 | 0.59 [0.49, 0.69] n=15 | **no** |
| pipe.fifo | 32 | send -> recv | 66 | 70 | 0.91 [0.89, 0.98] n=7 | **no** |
| mq.posix | 32 | send -> recv | 28 | 31 | 1.00 [0.98, 1.02] n=5 | yes |
| mq.sysv | 32 | send -> recv | 28 | 31 | 1.00 [0.98, 1.02] n=5 | yes |

### Round-trip latency, median (target: ratio <= 1.05)

| transport | size | ipchost p50 µs | reference p50 µs | ratio | meets |
|---|---:|---:|---:|---:|---|
| shm.ring | 1024 | 0.32 | 0.28 | 1.01 [1.00, 1.02] n=7 | yes |
| mq.sysv | 32 | 47.42 | 53.43 | 0.94 [0.93, 1.07] n=6 | yes |
MD
cat >"$dir/after.md" <<'MD'
### Throughput (target: ratio >= 0.95)

| transport | size | ipchost calls | ipchost MB/s | reference MB/s | ratio | meets |
|---|---:|---|---:|---:|---:|---|
| shm.ring | 1024 | send -> recv | 60000 | 62000 | 0.97 [0.92, 1.01] n=9 | yes |
| pipe.fifo | 32 | send -> recv | 66 | 70 | 0.93 [0.85, 0.99] n=7 | **no** |
| mq.posix | 32 | send -> recv | 28 | 31 | 0.90 [0.88, 0.93] n=5 | **no** |
| udp.inet | 32 | send -> recv | 28 | 31 | 0.99 [0.98, 1.00] n=5 | yes |

### Round-trip latency, median (target: ratio <= 1.05)

| transport | size | ipchost p50 µs | reference p50 µs | ratio | meets |
|---|---:|---:|---:|---:|---|
| shm.ring | 1024 | 0.36 | 0.28 | 1.20 [1.10, 1.30] n=7 | **no** |
| mq.sysv | 32 | 48.00 | 53.43 | 0.97 [0.96, 1.03] n=6 | yes |
MD
out="$(python3 "$tool" "$dir/before.md" "$dir/after.md")"
echo "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "FAIL: no line with: $1" >&2; exit 1; }
}
expect "| shm.ring · 1024 · send -> recv | 0.59 [0.49, 0.69] | 0.97 [0.92, 1.01] | faster |"
expect "| pipe.fifo · 32 · send -> recv | 0.91 [0.89, 0.98] | 0.93 [0.85, 0.99] | same |"
expect "| mq.posix · 32 · send -> recv | 1.00 [0.98, 1.02] | 0.90 [0.88, 0.93] | **slower** |"
expect "| udp.inet · 32 · send -> recv | - | 0.99 [0.98, 1.00] | new |"
expect "| mq.sysv · 32 · send -> recv | 1.00 | - | not in the after run |"
expect "| mq.sysv · 32 | 0.94 [0.93, 1.07] | 0.97 [0.96, 1.03] | same |"
expect "| shm.ring · 1024 | 1.01 [1.00, 1.02] | 1.20 [1.10, 1.30] | **slower** |"
printf 'no tables here\n' >"$dir/empty.md"
if err="$(python3 "$tool" "$dir/before.md" "$dir/empty.md" 2>&1)"; then
  echo "FAIL: a file without tables was accepted" >&2
  exit 1
fi
grep -qF "no tables found in $dir/empty.md" <<<"$err" || { echo "FAIL: refusal was: $err" >&2; exit 1; }
echo "side_by_side: 7 rows and the refusal as expected"
