#!/usr/bin/env bash
# A fleet on one machine: five network namespaces, each an "ipchost serve" agent, and a sixth
# for the driver, all joined by a bridge that lives in a namespace of its own (nothing is added
# to the machine's own network). `ipchost fleet --pairs mesh` runs across them; then one agent is
# killed in the middle of a run, and one is given the wrong token. Everything is torn down in
# every exit path. Needs root, iproute2 and jq; exits 77 (skipped) without them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ipchost="${IPCHOST:-$root/build/bin/ipchost}"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v jq >/dev/null; then
  echo "netns-fleet-test: skipped (needs root, iproute2 and jq)"
  exit 77
fi
[ -x "$ipchost" ] || { echo "netns-fleet-test: no ipchost at $ipchost"; exit 1; }

tag="ipcf$$"
agents=5
net="10.204.$((RANDOM % 250))"
port=7451
work="$(mktemp -d)"
declare -a pids
passed=0
failed=0

cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for i in $(seq 0 "$agents"); do ip netns del "$tag-$i" 2>/dev/null || true; done
  ip netns del "$tag-sw" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

jq_true() { jq -e "$@" >/dev/null; }

check() {  # check NAME COMMAND...
  local name="$1"
  shift
  if "$@"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}

# The switch, and one host per namespace: 1..5 the agents, 0 the driver (.100).
ip netns add "$tag-sw"
ip -n "$tag-sw" link add br0 type bridge
ip -n "$tag-sw" link set br0 up
addr_of() { if [ "$1" = 0 ]; then echo "$net.100"; else echo "$net.$1"; fi; }
for i in $(seq 0 "$agents"); do
  ns="$tag-$i"
  ip netns add "$ns"
  ip link add "${tag}h$i" type veth peer name "${tag}s$i"
  ip link set "${tag}h$i" netns "$ns"
  ip link set "${tag}s$i" netns "$tag-sw"
  ip -n "$tag-sw" link set "${tag}s$i" master br0 up
  ip -n "$ns" addr add "$(addr_of "$i")/24" dev "${tag}h$i"
  ip -n "$ns" link set lo up
  ip -n "$ns" link set "${tag}h$i" up
done
echo "netns-fleet-test: agents $net.1-$net.$agents, driver $net.100, on a bridge"

umask 077
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/wrong"  # another strong token
start_agent() {  # start_agent I TOKENFILE
  ip netns exec "$tag-$1" "$ipchost" serve --allow-root --bind "$(addr_of "$1"):$port" \
    --token-file "$2" --max-sessions 2 --allow-peer "$net.0/24" >>"$work/agent$1.log" 2>&1 &
  pids[$1]=$!
  for _ in $(seq 50); do
    ip netns exec "$tag-0" bash -c "exec 3<>/dev/tcp/$(addr_of "$1")/$port" 2>/dev/null && return
    sleep 0.1
  done
}
for i in $(seq 1 "$agents"); do start_agent "$i" "$work/token"; done
for i in $(seq 1 "$agents"); do
  echo "$(addr_of "$i"):$port node=n$i zone=z$((i % 2))"
done >"$work/agents.txt"

fleet() {  # fleet OUTPUT [options]: the mesh from the driver's namespace
  local out="$1"
  shift
  ip netns exec "$tag-0" "$ipchost" fleet --agents "$work/agents.txt" --token-file "$work/token" \
    --plugin socket.tcp --size 16K --mode throughput --duration 0.3 --warmup 0.1 --verify \
    --format json --output "$out" "$@"
}

# 1. The mesh: exactly N(N-1) rows, every ordered pair once, every byte checked.
start=$(date +%s%N)
fleet "$work/mesh.json" --concurrency 2 2>"$work/mesh.log" || true
took_ms=$((($(date +%s%N) - start) / 1000000))
rounds=$(jq '[.results[].fleet.round] | max' "$work/mesh.json")
echo "     mesh: $(jq '.results | length' "$work/mesh.json") rows in $rounds rounds, $took_ms ms ($((took_ms / rounds)) ms a round)"
check "mesh: 20 rows, one per ordered pair" \
  jq_true '(.results | length) == 20 and ([.results[] | .fleet.source + ">" + .fleet.destination] | unique | length) == 20' "$work/mesh.json"
check "mesh: every row measured, sent == received" \
  jq_true 'all(.results[]; .status == "ok" and .integrity.messages_received == .integrity.messages_sent and .integrity.messages_sent > 0)' "$work/mesh.json"
check "mesh: no agent in two pairs of a round" \
  jq_true '[.results | group_by(.fleet.round)[] | [.[] | .fleet.source, .fleet.destination] | (length == (unique | length))] | all' "$work/mesh.json"
check "mesh: rows carry the agents' labels" \
  jq_true "all(.results[]; .fleet.source_labels.node != null and .fleet.destination_labels.zone != null)" "$work/mesh.json"
jq -r '.results[] | "     \(.fleet.round)  \(.fleet.source) -> \(.fleet.destination)  \(.throughput.mb_per_sec | floor) MB/s"' "$work/mesh.json" | head -4
"$ipchost" report "$work/mesh.json" --output "$work/mesh.html"
check "report: the HTML has the source x destination heatmap" grep -q "Source &times; destination" "$work/mesh.html"
"$ipchost" report "$work/mesh.json" --format table | sed -n '/Source x destination/,$p'

# 2. A row against the same pair alone, agent to agent from the driver: within noise (3x).
a1="$(addr_of 1):$port" a2="$(addr_of 2):$port"
ip netns exec "$tag-0" "$ipchost" --from "$a1" --peer "$a2" --token-file "$work/token" \
  --plugin socket.tcp --size 16K --mode throughput --duration 0.3 --warmup 0.1 --format json \
  --output "$work/alone.json" 2>/dev/null || true
fleet_mb=$(jq ".results[] | select(.fleet.source == \"$a1\" and .fleet.destination == \"$a2\") | .throughput.mb_per_sec" "$work/mesh.json")
alone_mb=$(jq '.results[0].throughput.mb_per_sec' "$work/alone.json")
echo "     $a1 -> $a2: fleet $fleet_mb MB/s, alone $alone_mb MB/s"
check "a fleet row matches its pair run alone (within 3x)" \
  jq_true -n "($fleet_mb / $alone_mb) as \$r | \$r > 0.33 and \$r < 3"
# and the native --peer path from agent 1's own namespace
ip netns exec "$tag-1" "$ipchost" --peer "$a2" --token-file "$work/token" --plugin socket.tcp \
  --size 16K --mode throughput --duration 0.3 --warmup 0.1 --format json \
  --output "$work/peer.json" 2>/dev/null || true
peer_mb=$(jq '.results[0].throughput.mb_per_sec' "$work/peer.json")
echo "     --peer from $a1's namespace: $peer_mb MB/s"
check "a fleet row matches ipchost --peer from the source's host (within 3x)" \
  jq_true -n "($fleet_mb / $peer_mb) as \$r | \$r > 0.33 and \$r < 3"

# 3. Agent 5 killed in the middle: only rows with agent 5 fail, the schedule goes on.
a5="$(addr_of 5):$port"
fleet "$work/killed.json" 2>"$work/killed.log" &
fleet_pid=$!
for _ in $(seq 200); do grep -q "round 3 of" "$work/killed.log" && break; sleep 0.1; done
kill -9 "${pids[5]}"
wait "$fleet_pid" || true
check "killed: still 20 rows" jq -e '(.results | length) == 20' "$work/killed.json"
check "killed: every failed row has the killed agent in it, and some did fail" \
  jq_true "([.results[] | select(.status != \"ok\")] | length > 0) and all(.results[] | select(.status != \"ok\"); .fleet.source == \"$a5\" or .fleet.destination == \"$a5\")" "$work/killed.json"
check "killed: every row without the killed agent measured" \
  jq_true "all(.results[] | select(.fleet.source != \"$a5\" and .fleet.destination != \"$a5\"); .status == \"ok\")" "$work/killed.json"
jq -r ".results[] | select(.status != \"ok\") | \"     \(.fleet.source) -> \(.fleet.destination): \(.error)\"" "$work/killed.json" | head -3

# 4. Agent 5 back with another token: its 8 rows fail naming it, the other 12 measure.
start_agent 5 "$work/wrong"
fleet "$work/token.json" 2>/dev/null || true
check "wrong token: 8 rows fail, each naming the agent and the wrong token" \
  jq_true "[.results[] | select(.status == \"failed\")] | length == 8 and all(.[]; .error | contains(\"the agent at $a5 could not prove it holds this token\"))" "$work/token.json"
check "wrong token: the other 12 rows measured" \
  jq_true '[.results[] | select(.status == "ok")] | length == 12' "$work/token.json"

echo "netns-fleet-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
