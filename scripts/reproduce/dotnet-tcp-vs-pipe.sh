#!/usr/bin/env bash
# The .NET write-up, in C# on Linux: one-way asynchronous TCP over loopback with 512 KiB writes
# against a pipe with 256 KiB writes (160 vs 755 MB/s there, on Windows), with CPU % and peak RSS
# of each process, the write-up's three figures. C# on both sides (Mono: the dotnet kit's
# SocketAsyncEventArgs sends and receives; FileStream on a FIFO; System.IO.Pipes, which Mono
# implements on Linux as a Unix stream socket, through the dotnet-pipestream kit), and the native
# worker on both sides of the same transport, with the ratio. DURATION=... for longer runs.
source "$(dirname "$0")/common.sh"
duration="${DURATION:-3}"
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
for kit in dotnet dotnet-pipestream; do
  if ! "$IPCHOST" --list --format json | jq -e --arg k "$kit" '.kits[] | select(.name == $k and .usable)' >/dev/null; then
    echo "the $kit kit is not built here: scripts/install-deps.sh --kits, then rebuild" >&2
    exit 1
  fi
done
figures() {  # impl transport size -> "MB/s sender-CPU% receiver-CPU% sender-RSS-MiB receiver-RSS-MiB status runtime"
  "$IPCHOST" --plugin "$2" --mode throughput --size "$3" --duration "$duration" --warmup 1 \
    --impl "sender=$1" --impl "receiver=$1" --format json 2>/dev/null |
    jq -r '.results[0] | [(.throughput.mb_per_sec // 0), (.sender.outside_cpu_percent // 0),
           (.receiver.outside_cpu_percent // 0), ((.sender.outside_max_rss_kib // 0) / 1024),
           ((.receiver.outside_max_rss_kib // 0) / 1024), .status,
           ((if (.receiver.runtime // "") == "" then "native" else .receiver.runtime end) | gsub(" "; "_"))] | @tsv'
}
printf '\n%-44s %-17s %9s %8s %8s %9s %9s\n' "transport, writes ($duration s)" side "MB/s" "snd CPU" "rcv CPU" \
  "snd MiB" "rcv MiB"
row() {  # label kit transport size
  local label="$1" kit="$2" transport="$3" size="$4" c n
  c="$(figures "$kit" "$transport" "$size")"
  n="$(figures native "$transport" "$size")"
  for f in "$c" "$n"; do
    read -r mb scpu rcpu srss rrss status runtime <<<"$f"
    printf '%-44s %-17s %9.1f %7.0f%% %7.0f%% %9.1f %9.1f %s\n' "$label" "${runtime//_/ }" "$mb" "$scpu" \
      "$rcpu" "$srss" "$rrss" "$([ "$status" = ok ] || echo "($status)")"
  done
  awk -v c="$(cut -f1 <<<"$c")" -v n="$(cut -f1 <<<"$n")" -v l="$label" \
    'BEGIN { if (n > 0) printf "%-44s C# / native throughput: %.2f\n", l, c / n }'
}
row "TCP loopback, async sockets, 512 KiB" dotnet socket.tcp 512K
row "FIFO through FileStream, 256 KiB" dotnet pipe.fifo 256K
row "named pipe (System.IO.Pipes = Unix socket)" dotnet-pipestream socket.unix 256K
echo
echo "CPU % and RSS are measured from outside each process (the whole runtime: GC and JIT threads"
echo "count). On Windows the write-up's named pipe is a kernel pipe object; Mono's is a Unix socket."
