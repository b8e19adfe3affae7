#!/usr/bin/env bash
# Seed experiment: UDP with 65,507-byte datagrams (the IPv4 maximum) over loopback: MB/s, Mbit/s
# and packets/s (msg/s), with datagrams lost counted, never hidden.
source "$(dirname "$0")/common.sh"
duration="${DURATION:-5}"
run "UDP 65,507-byte datagrams, default socket buffers" \
  "$IPCHOST" --plugin udp.inet --mode throughput --size 65507 --duration "$duration"
run "UDP 65,507-byte datagrams, 4 MiB receive buffer" \
  "$IPCHOST" --plugin udp.inet --mode throughput --size 65507 --duration "$duration" \
  --opt rcvbuf=4M
