#!/usr/bin/env bash
# The Java write-up: 5,120,000 messages of 1 KiB through a System V queue reached over JNI
# (29.7 s there), against Java sockets, TCP with and without Nagle. Each row runs twice, Java on
# both sides (--impl java: the kit's JNI msgsnd/msgrcv, SocketChannel) and the native worker on
# both sides, and prints both figures and the ratio. COUNT=... for a shorter run.
source "$(dirname "$0")/common.sh"
count="${COUNT:-5120000}"
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
if ! "$IPCHOST" --list --format json | jq -e '.kits[] | select(.name == "java" and .usable)' >/dev/null; then
  echo "the java kit is not built here: scripts/install-deps.sh --kits, then rebuild" >&2
  exit 1
fi
figures() {  # impl transport [options...] -> "seconds MB/s gc_collections gc_pause_ms"
  local impl="$1" transport="$2"
  shift 2
  "$IPCHOST" --plugin "$transport" --mode throughput --size 1K --count "$count" --warmup 1 \
    --impl "$impl" --format json "$@" 2>/dev/null |
    jq -r '.results[0] | [(.integrity.messages_received * 1024 / (.throughput.bytes_per_sec + 1e-9)),
           (.throughput.bytes_per_sec / 1e6), (.receiver.kit.gc_collections // 0),
           ((.receiver.kit.gc_pause_ns // 0) / 1e6), .status] | @tsv'
}
printf '\n%-34s %-7s %10s %10s %8s %10s\n' "transport ($count x 1 KiB)" side seconds "MB/s" "GCs" "GC ms"
row() {  # label transport [options...]
  local label="$1"
  shift
  local java native
  java="$(figures java "$@")"
  native="$(figures native "$@")"
  for side in java native; do
    local f
    [ "$side" = java ] && f="$java" || f="$native"
    read -r s mb gcs gcms status <<<"$f"
    printf '%-34s %-7s %10.2f %10.1f %8s %10.1f %s\n' "$label" "$side" "$s" "$mb" "$gcs" "$gcms" \
      "$([ "$status" = ok ] || echo "($status)")"
  done
  awk -v j="$(cut -f2 <<<"$java")" -v n="$(cut -f2 <<<"$native")" -v l="$label" \
    'BEGIN { if (n > 0) printf "%-34s java / native throughput: %.2f\n", l, j / n }'
}
row "System V queue (JNI in Java)" mq.sysv
row "TCP loopback, TCP_NODELAY" socket.tcp
row "TCP loopback, Nagle (nodelay=0)" socket.tcp --opt nodelay=0
