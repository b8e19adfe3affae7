#!/usr/bin/env bash
# Seed experiment: sockets vs named pipes, one-way throughput with large writes (512 KiB socket
# writes, 256 KiB pipe writes), with CPU % and peak RSS of each process.
# Prints total ms, MB/s, MiB/s, Mbit/s, CPU % and RSS per transport.
source "$(dirname "$0")/common.sh"
duration="${DURATION:-3}"
run "Unix and TCP sockets, 512 KiB writes" \
  "$IPCHOST" --plugin socket.unix,socket.tcp --mode throughput --size 512K --duration "$duration"
run "Named pipe (FIFO), 256 KiB writes, default 64 KiB pipe buffer" \
  "$IPCHOST" --plugin pipe.fifo --mode throughput --size 256K --duration "$duration"
run "Named pipe (FIFO), 256 KiB writes, 1 MiB pipe buffer" \
  "$IPCHOST" --plugin pipe.fifo --mode throughput --size 256K --duration "$duration" \
  --opt pipe_size=1M
