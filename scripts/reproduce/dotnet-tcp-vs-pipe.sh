#!/usr/bin/env bash
# S0, the .NET write-up, in C# on Linux, on each C# runtime built here (.NET on CoreCLR: the
# dotnet kit; Mono: the mono kit): one-way asynchronous TCP over loopback with 512 KiB writes
# against a named pipe (System.IO.Pipes, a Unix stream socket on Linux) with 256 KiB writes,
# with MB/s, CPU % and peak RSS of each process, the write-up's three figures. Each shape three
# ways, in one run: the kit with the API S0's programs used (Begin*/End*: --impl KIT:apm and
# KIT:pipestream-apm), the S0 programs themselves as their authors wrote them
# (scripts/bench/fidelity/csharp, sharing no code with the kit), and the native worker; then the
# kit / program ratio. Sender on CPU 0, receiver on CPU 1 for all three. DURATION=... (3 s).
source "$(dirname "$0")/common.sh"
duration="${DURATION:-3}"
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root/scripts/bench/fidelity/csharp.sh" build "$work" >&2
kit_figures() {  # impl transport size -> "MB/s sender-CPU% receiver-CPU% sender-RSS-MiB receiver-RSS-MiB"
  "$IPCHOST" --plugin "$2" --mode throughput --size "$3" --duration "$duration" --affinity 0,1 \
    --impl "sender=$1" --impl "receiver=$1" --format json 2>/dev/null |
    jq -r '.results[0] | if .status != "ok" then "0 0 0 0 0" else [(.throughput.mb_per_sec // 0),
           (.sender.outside_cpu_percent // 0), (.receiver.outside_cpu_percent // 0),
           ((.sender.outside_max_rss_kib // 0) / 1024), ((.receiver.outside_max_rss_kib // 0) / 1024)]
           | map(tostring) | join(" ") end' || echo "0 0 0 0 0"
}
line() {  # label side "MB/s sCPU rCPU sRSS rRSS"
  read -r mb scpu rcpu srss rrss <<<"$3"
  printf '%-34s %-26s %9.1f %7.0f%% %7.0f%% %8.1f %8.1f\n' "$1" "$2" "$mb" "$scpu" "$rcpu" "$srss" "$rrss"
}
printf '\n%-34s %-26s %9s %8s %8s %8s %8s\n' "shape ($duration s)" "side" "MB/s" "snd CPU" "rcv CPU" \
  "snd MiB" "rcv MiB"
for kit in dotnet mono; do
  if ! "$IPCHOST" --list --format json | jq -e --arg k "$kit" '.kits[] | select(.name == $k and .usable)' >/dev/null; then
    echo "($kit: not built here; dotnet needs the .NET SDK, mono scripts/install-deps.sh --kits)"
    continue
  fi
  runtime="$("$IPCHOST" --list --format json | jq -r --arg k "$kit" '.kits[] | select(.name == $k) | .runtime')"
  program_runtime=$([ "$kit" = dotnet ] && echo coreclr || echo mono)
  warm="$("$IPCHOST" --list --format json | jq -r --arg k "$kit" '.kits[] | select(.name == $k) | .warmup_s')"
  for shape in "async TCP, 512 KiB:socket.tcp:512K:524288:apm:SocketApm" \
    "named pipe, 256 KiB:socket.unix:256K:262144:pipestream-apm:NamedPipeApm"; do
    IFS=: read -r label transport size bytes api program <<<"$shape"
    k="$(kit_figures "$kit:$api" "$transport" "$size")"
    p="$("$root/scripts/bench/fidelity/csharp.sh" figures "$work" "$program_runtime" "$program" "$duration" "$bytes" "$warm")"
    n="$(kit_figures native "$transport" "$size")"
    line "$label" "$kit:$api ($runtime)" "$k"
    line "" "S0's program ($program)" "$p"
    line "" "native worker" "$n"
    awk -v k="${k%% *}" -v p="${p%% *}" 'BEGIN { if (p > 0) printf "%-34s kit / program: %.2f\n", "", k / p }'
  done
done
echo
echo "CPU % and RSS are of each whole process (GC, JIT and thread-pool threads count): ipchost's"
echo "from /proc, the programs' from GNU time. On Windows S0's named pipe is a kernel pipe object."
