#!/usr/bin/env bash
# Seed experiment: 5,120,000 messages of 1 KiB through a System V message queue vs a TCP socket.
# TCP runs twice: with TCP_NODELAY (ipchost's default, every write its own segment) and with
# Nagle's algorithm (nodelay=0, what a naive program gets), because the two differ several-fold.
source "$(dirname "$0")/common.sh"
count="${COUNT:-5120000}"
run "System V queue, $count x 1 KiB" \
  "$IPCHOST" --plugin mq.sysv --mode throughput --size 1K --count "$count" --warmup 0
run "TCP loopback, TCP_NODELAY on, $count x 1 KiB" \
  "$IPCHOST" --plugin socket.tcp --mode throughput --size 1K --count "$count" --warmup 0
run "TCP loopback, Nagle on (nodelay=0), $count x 1 KiB" \
  "$IPCHOST" --plugin socket.tcp --mode throughput --size 1K --count "$count" --warmup 0 \
  --opt nodelay=0
