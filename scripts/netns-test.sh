#!/usr/bin/env bash
# Two hosts on one machine: two network namespaces joined by a veth pair with their own
# addresses. `ipchost serve` runs in one, `ipchost --peer` in the other; TCP and UDP runs cross
# the link, plain, with packet loss, and with a rate limit. All traffic stays inside the two
# namespaces this script creates, and everything is torn down in every exit path.
#
# Loss: tc netem when the kernel has it, else an nftables rule dropping a random 10% of UDP
# datagrams (this kind of micro-VM kernel has no sch_netem). Rate: a tc tbf qdisc.
# Needs root (ip netns); exits 77 (skipped) without it. IPCHOST=... picks the binary.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ipchost="${IPCHOST:-$root/build/bin/ipchost}"
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v jq >/dev/null; then
  echo "netns-test: skipped (needs root, iproute2 and jq)"
  exit 77
fi
[ -x "$ipchost" ] || { echo "netns-test: no ipchost at $ipchost"; exit 1; }

tag="ipcb$$"
srv="${tag}-srv"
cli="${tag}-cli"
net="10.203.$((RANDOM % 250))"
addr_srv="$net.1"
addr_cli="$net.2"
port=7451
work="$(mktemp -d)"
serve_pid=""
vanish_pid=""
passed=0
failed=0

cleanup() {
  for pid in $serve_pid $vanish_pid; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  ip netns del "$srv" 2>/dev/null || true   # takes the veth pair with it
  ip netns del "$cli" 2>/dev/null || true
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

ip netns add "$srv"
ip netns add "$cli"
ip link add "${tag}a" type veth peer name "${tag}b"
ip link set "${tag}a" netns "$srv"
ip link set "${tag}b" netns "$cli"
ip -n "$srv" addr add "$addr_srv/24" dev "${tag}a"
ip -n "$cli" addr add "$addr_cli/24" dev "${tag}b"
for ns in "$srv" "$cli"; do ip -n "$ns" link set lo up; done
ip -n "$srv" link set "${tag}a" up
ip -n "$cli" link set "${tag}b" up
echo "netns-test: $srv ($addr_srv) <-> $cli ($addr_cli)"

umask 077
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/token"
ip netns exec "$srv" "$ipchost" serve --allow-root --bind "$addr_srv:$port" --token-file "$work/token" \
  >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do
  ip netns exec "$cli" bash -c "exec 3<>/dev/tcp/$addr_srv/$port" 2>/dev/null && break
  sleep 0.1
done
sleep 0.2

client() { ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$port" --token-file "$work/token" "$@"; }

# 1. TCP across the link: figures arrive, with the remote side's CPU and memory.
client --plugin socket.tcp --size 64K --mode throughput --duration 1 --format json >"$work/tcp.json"
check "tcp: measured across hosts" \
  test "$(jq -r '.results[0].status' "$work/tcp.json")" = ok
check "tcp: remote receiver's CPU and RSS came back" \
  jq_true '.results[0].receiver.max_rss_kib > 0 and .results[0].receiver.cpu_percent > 0' "$work/tcp.json" >/dev/null
echo "     tcp: $(jq -r '.results[0].throughput.mbit_per_sec | floor' "$work/tcp.json") Mbit/s"

# 2. UDP with 10% loss on the link: the loss shows up as counted loss.
loss_by=""
if ip netns exec "$cli" tc qdisc add dev "${tag}b" root netem loss 10% 2>/dev/null; then
  loss_by="tc netem loss 10%"
elif command -v nft >/dev/null &&
     ip netns exec "$srv" nft add table inet ipcbench_loss 2>/dev/null &&
     ip netns exec "$srv" nft 'add chain inet ipcbench_loss input { type filter hook input priority 0; }' &&
     ip netns exec "$srv" nft "add rule inet ipcbench_loss input ip saddr $addr_cli udp dport != $port numgen random mod 10 < 1 drop"; then
  loss_by="nftables: drop a random 10% of UDP"
fi
if [ -n "$loss_by" ]; then
  echo "     loss on the link: $loss_by"
  client --plugin udp.inet --size 1400 --rate 20000 --duration 2 --warmup 0.2 --interval 0.5 \
    --mode throughput --format json >"$work/udp.json"
  "$ipchost" report "$work/udp.json" --format table
  jq -r '.results[0].intervals[] | "     \(.end_s - .seconds | . * 100 | round / 100)-\(.end_s | . * 100 | round / 100) s  \(.mb_per_sec | . * 10 | round / 10) MB/s  \(.bytes * 8 / .seconds / 1e6 | round) Mbit/s  \(.messages / .seconds | round) packets/s  lost \(.lost)"' "$work/udp.json"
  check "udp: measured across hosts with loss" test "$(jq -r '.results[0].status' "$work/udp.json")" = ok
  # A starved receiver may lose more than the link does, so no upper bound: what was lost is
  # at least most of what the link dropped, and the count adds up.
  check "udp: 10% link loss counted (>3% lost, lost = sent - received)" \
    jq_true '.results[0].integrity as $i | ($i.lost / $i.messages_sent) > 0.03 and $i.lost == $i.messages_sent - $i.messages_received' "$work/udp.json"
  echo "     udp: $(jq -r '.results[0].integrity | "\(.lost) of \(.messages_sent) lost"' "$work/udp.json")"
  ip netns exec "$cli" tc qdisc del dev "${tag}b" root 2>/dev/null || true
  ip netns exec "$srv" nft delete table inet ipcbench_loss 2>/dev/null || true
else
  echo "SKIP udp loss: neither tc netem nor nftables work here"
fi

# 3. A 40 Mbit/s rate limit on the client's egress: throughput follows it.
if ip netns exec "$cli" tc qdisc add dev "${tag}b" root tbf rate 40mbit burst 64kb latency 100ms; then
  client --plugin socket.tcp --size 16K --mode throughput --duration 1.5 --format json >"$work/rate.json"
  mbit="$(jq -r '.results[0].throughput.mbit_per_sec' "$work/rate.json")"
  echo "     tcp under a 40 Mbit/s limit: ${mbit%.*} Mbit/s"
  check "tcp: a 40 Mbit/s limit caps throughput (10-50 Mbit/s)" \
    jq_true '.results[0].throughput.mbit_per_sec | . > 10 and . < 50' "$work/rate.json"
  ip netns exec "$cli" tc qdisc del dev "${tag}b" root
fi

# 4. Security across the link.
if ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$port" --token wrong --plugin socket.tcp \
     --size 1K --mode throughput --format json >"$work/wrong.json" 2>/dev/null; then
  check "wrong token refused" false
else
  check "wrong token refused" grep -q "could not prove it holds this token" "$work/wrong.json"
fi
# Without --token the agent makes one, writes it to a 0600 file and refuses clients without it.
mkdir -p "$work/xdg"
ip netns exec "$srv" env XDG_RUNTIME_DIR="$work/xdg" "$ipchost" serve --allow-root --once \
  --bind "$addr_srv:$((port + 1))" >"$work/gen.log" 2>&1 &
gen_pid=$!
gen_token="$work/xdg/ipcbench/agent-$((port + 1)).token"
for _ in $(seq 50); do [ -s "$gen_token" ] && break; sleep 0.1; done
check "no token given: the agent wrote a generated one, mode 600" \
  test "$(stat -c %a "$gen_token" 2>/dev/null)" = 600
if ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$((port + 1))" --plugin socket.tcp --size 1K \
     --mode throughput --duration 0.2 --format json >"$work/notoken.json" 2>/dev/null; then
  check "no token: a client without it is refused" false
else
  check "no token: a client without it is refused" grep -q "requires a token" "$work/notoken.json"
fi
check "the generated token lets a client in" \
  ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$((port + 1))" --token-file "$gen_token" \
    --plugin socket.tcp --size 1K --mode throughput --duration 0.2 --format json --output "$work/gen.json"
wait "$gen_pid" || true
check "the generated token file is removed when the agent stops" test ! -e "$gen_token"

# 5. A data-port race from another host of the link: an attacker on a second address of the
# client's namespace connects to the agent's data port (pinned with --data-port) over and over,
# from before the case starts. The agent's creator takes only the client's address presenting
# the case's key: the case is measured whole, and the attacker is never served a byte.
race_port=$((port + 40))
ip -n "$cli" addr add "$net.3/24" dev "${tag}b"
ip netns exec "$cli" python3 - "$net.3" "$addr_srv" "$race_port" >"$work/race.txt" 2>&1 <<'PY' &
import socket, sys, time
src, dst, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
connected = served = 0
end = time.time() + 6
while time.time() < end:
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(0.05)
    try:
        s.connect((dst, port))
        connected += 1
        s.sendall(b"A" * 64)
        if s.recv(256):
            served += 1
    except OSError:
        pass
    s.close()
    time.sleep(0.0005)
print(f"connected {connected} served {served}")
PY
race_pid=$!
sleep 0.3
client --plugin socket.tcp --data-port "$race_port" --size 1K --count 20000 --warmup 0 --verify \
  --mode throughput --format json >"$work/race.json" 2>"$work/race.err" || true
wait "$race_pid" || true
check "race: the case was measured whole beside an attacker on the data port" \
  jq_true '.results[0] | .status == "ok" and .integrity.messages_received == 20000 and .integrity.corrupted == 0' "$work/race.json"
check "race: the attacker reached the port and was never served ($(cat "$work/race.txt"))" \
  grep -qE '^connected [1-9][0-9]* served 0$' "$work/race.txt"

# 6. A client that vanishes mid-run without a FIN (its host gone: every packet from it dropped,
# then the process killed): TCP keepalive frees its session (--idle-timeout 2: probes after 2 s,
# every second, 3 unanswered) instead of holding it for the run's 30 s.
vport=$((port + 2))
ip netns exec "$srv" "$ipchost" serve --allow-root --bind "$addr_srv:$vport" \
  --token-file "$work/token" --idle-timeout 2 >"$work/vanish.log" 2>&1 &
vanish_pid=$!
for _ in $(seq 50); do
  ip netns exec "$cli" bash -c "exec 3<>/dev/tcp/$addr_srv/$vport" 2>/dev/null && break
  sleep 0.1
done
ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$vport" --token-file "$work/token" \
  --plugin socket.tcp --size 1K --mode throughput --duration 30 --format json >/dev/null 2>&1 &
gone_pid=$!
for _ in $(seq 100); do grep -q "session started" "$work/vanish.log" && break; sleep 0.1; done
ip netns exec "$srv" nft add table inet ipcbench_vanish
ip netns exec "$srv" nft 'add chain inet ipcbench_vanish input { type filter hook input priority 0; }'
ip netns exec "$srv" nft "add rule inet ipcbench_vanish input ip saddr $addr_cli drop"
kill -9 "$gone_pid" 2>/dev/null
wait "$gone_pid" 2>/dev/null || true
gone_at=$SECONDS
for _ in $(seq 200); do grep -q "session ended" "$work/vanish.log" && break; sleep 0.1; done
freed_after=$((SECONDS - gone_at))
check "a vanished client's session is freed by keepalive (${freed_after} s, not the run's 30)" \
  grep -q "session ended" "$work/vanish.log"
check "  ... within 15 s" test "$freed_after" -lt 15
ip netns exec "$srv" nft delete table inet ipcbench_vanish
check "  ... and the next client is served, not told busy" \
  ip netns exec "$cli" "$ipchost" --peer "$addr_srv:$vport" --token-file "$work/token" \
    --plugin socket.tcp --size 1K --mode throughput --duration 0.2 --format json --output "$work/next.json"
kill "$vanish_pid" 2>/dev/null
wait "$vanish_pid" 2>/dev/null || true
check "the agent logged every session" grep -q "session started" "$work/serve.log"

echo "netns-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
