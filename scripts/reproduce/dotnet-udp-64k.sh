#!/usr/bin/env bash
# The .NET UDP write-up, in C#: a sender of 65,507-byte datagrams (the IPv4 maximum; the
# write-up's 65,535 does not fit) printing MB/s, Mbit/s and packets/s each second, here with the
# datagrams lost counted too. C# on both sides, on each runtime built here (the dotnet kit on
# CoreCLR, the mono kit: Socket.Send / Socket.Receive on a connected UDP socket), and then the
# native worker on both sides, each second as measured by the receiver (--interval 1), and the
# totals with the C# / native ratio. DURATION=... seconds. On CoreCLR also S1's own receive path,
# `dotnet:task` (buffers on the pinned object heap, ReceiveFromAsync(Memory<byte>, SocketFlags,
# SocketAddress) awaited), and S1's shape written as a program of its own
# (scripts/bench/fidelity/csharp/UdpPoh.cs), pinned one CPU a side like the kit cases.
source "$(dirname "$0")/common.sh"
# CoreCLR leaves debugger pipes and a diagnostic socket in TMPDIR for each killed process.
export DOTNET_EnableDiagnostics=0
duration="${DURATION:-5}"
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
kits=()
for k in dotnet dotnet:task mono; do
  "$IPCHOST" --list --format json | jq -e --arg k "$k" '.kits[] | select(.name == $k and .usable)' >/dev/null && kits+=("$k")
done
if [ ${#kits[@]} = 0 ]; then
  echo "no C# kit is built here: the .NET SDK (dotnet) or scripts/install-deps.sh --kits (mono), then rebuild" >&2
  exit 1
fi
out="$(mktemp)"
trap 'rm -rf "$out" "$out.fid"' EXIT
total() { jq -r '.results[0] | [.throughput.mb_per_sec // 0, .throughput.mbit_per_sec // 0,
                 .throughput.messages_per_sec // 0, .integrity.lost // 0, .integrity.messages_sent // 0,
                 .status] | @tsv' "$out"; }
side() {  # impl -> prints the seconds, leaves the run in $out
  "$IPCHOST" --plugin udp.inet --mode throughput --size 65507 --duration "$duration" --interval 1 \
    --affinity 0,1 --impl "sender=$1" --impl "receiver=$1" --format json >"$out" 2>/dev/null || true
  printf '\n== %s on both sides (%s)\n%8s %10s %10s %12s %10s\n' "$1" \
    "$(jq -r '.results[0].receiver.runtime // "" | if . == "" then "native" else . end' "$out")" second "MB/s" "Mbit/s" "packets/s" lost
  jq -r '.results[0].intervals[] | select(.seconds > 0.5) |
         [.end_s, .mb_per_sec, .mb_per_sec * 8, .messages / .seconds, .lost] | @tsv' "$out" |
    awk -F'\t' '{ printf "%8.0f %10.1f %10.1f %12.0f %10d\n", $1, $2, $3, $4, $5 }'
  read -r mb mbit pps lost sent status <<<"$(total)"
  printf '%8s %10.1f %10.1f %12.0f %10d  of %d sent %s\n' total "$mb" "$mbit" "$pps" "$lost" "$sent" \
    "$([ "$status" = ok ] || echo "($status)")"
}
declare -A csharp
for k in "${kits[@]}"; do
  side "$k"
  csharp[$k]="$(total | cut -f1)"
done
if [[ " ${kits[*]} " == *" dotnet:task "* ]] && "$root/scripts/bench/fidelity/csharp.sh" build "$out.fid" >/dev/null 2>&1 &&
  [ -f "$out.fid/coreclr/UdpPoh/UdpPoh.dll" ]; then
  printf '\n== S1 as a program: UdpPoh.cs on CoreCLR (pinned buffers, ReceiveFromAsync with SocketAddress)\n'
  port="$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  taskset -c 1 dotnet "$out.fid/coreclr/UdpPoh/UdpPoh.dll" read "$port" "$duration" 65507 0.5 &
  reader=$!
  sleep 1
  taskset -c 0 dotnet "$out.fid/coreclr/UdpPoh/UdpPoh.dll" write "$port" "$duration" 65507 0.5 || true
  wait "$reader" || true
  rm -rf "$out.fid"
fi
side native
for k in "${kits[@]}"; do
  awk -v c="${csharp[$k]}" -v n="$(total | cut -f1)" -v k="$k" \
    'BEGIN { if (n > 0) printf "\nC# (%s) / native received MB/s: %.2f", k, c / n }'
done
echo
echo "A datagram the receiver had no room for is lost, not late: compare the lost column, not only MB/s."
