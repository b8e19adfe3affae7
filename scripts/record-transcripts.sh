#!/usr/bin/env bash
# Records the golden transcripts of docs/worker-protocol/transcripts/: three cases run with the
# Python kit on both sides, each side's worker behind tests/kits/recording_proxy.py, which
# writes every control message it relays. The test suite replays them against ipchost
# (tests/kits/replay_worker.py, tests/e2e/test_kits.cpp): re-record after a protocol change.
#   throughput.jsonl  pipe.fifo, 1000 x 32 B, no warm-up
#   latency.jsonl     socket.unix, 100 round trips of 32 B
#   failing.jsonl     pipe.fifo with --opt splice=vmsplice, which the Python kit refuses at setup
# usage: scripts/record-transcripts.sh [path/to/ipchost]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ipchost="${1:-$root/build/bin/ipchost}"
[ -x "$ipchost" ] || { echo "record-transcripts: build ipchost first (cmake --build build)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="$root/docs/worker-protocol/transcripts"
mkdir -p "$work/kits/python" "$out"
record() {  # NAME ipchost-args...
  local name="$1"
  shift
  rm -rf "$work/rec" && mkdir -p "$work/rec"
  cat >"$work/kits/python/ipcbench-kit.json" <<JSON
{"kit_manifest": 1, "name": "python", "language": "Python",
 "worker": ["python3", "$root/tests/kits/recording_proxy.py", "$work/rec",
            "python3", "$root/kits/python/ipcbench_worker.py"],
 "runtime_version": ["python3", "$root/kits/python/ipcbench_worker.py", "--runtime-version"],
 "protocol": ["1.0"], "roles": ["sender", "receiver", "pinger", "ponger"],
 "transports": ["pipe.fifo", "socket.unix", "socket.tcp", "udp.inet"]}
JSON
  "$ipchost" -q --kit-dir "$work/kits" --impl python --format json "$@" >"$work/result.json" || true
  python3 - "$work/rec" "$out/$name.jsonl" <<'PY'
import json, os, sys
rec, target = sys.argv[1], sys.argv[2]
SIDES = {"send": "sender", "receive": "receiver", "ping": "pinger", "pong": "ponger"}
sides = []
for f in sorted(os.listdir(rec)):
    entries = [json.loads(l) for l in open(os.path.join(rec, f)) if l.strip()]
    side, server = None, False
    for e in entries:
        m = e["message"]
        if m.get("type") == "setup":
            server = m.get("role") == "creator"
        if m.get("type") == "run":
            side = SIDES[m["job"]["kind"]]
    if side is None:  # failed before its run: the creator is the receiver here
        side = "receiver" if server else "sender"
    sides.append((not server, side, entries))
with open(target, "w") as out:
    for _, side, entries in sorted(sides):
        for e in entries:
            out.write(json.dumps({"side": side, "from": e["from"], "message": e["message"]},
                                 sort_keys=True) + "\n")
PY
  echo "record-transcripts: $name.jsonl ($(wc -l <"$out/$name.jsonl") messages)"
}
record throughput --plugin pipe.fifo --mode throughput --size 32 --count 1000 --warmup 0
record latency --plugin socket.unix --mode latency --size 32 --count 100 --warmup 0
record failing --plugin pipe.fifo --mode throughput --size 32 --count 10 --warmup 0 --opt splice=vmsplice
