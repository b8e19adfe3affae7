#!/usr/bin/env bash
# scripts/bench/abiloop.c (bench.sh's split of the shm.ring round trip) against the built plugins:
# round trips of numbered pings whose pongs carry the same number (abiloop fails otherwise), on
# the zero-copy and the copy path and two wait modes, over a second plugin, and the refusals a
# user meets, each by its words.
set -euo pipefail
root="$1" plugins="$2" cc="$3" cflags="${4:-}" # cflags: the tree's sanitizer, if any
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086 # cflags is a list of flags
"$cc" -O2 -Wall -Werror $cflags -I"$root/sdk/include" -o "$dir/abiloop" \
  "$root/scripts/bench/abiloop.c" -ldl

trips() {  # PLUGIN TRANSPORT SIZE PATH [OPTIONS]: round trips made, each p50 > 0
  local line
  line="$("$dir/abiloop" "$plugins/$1" "$2" "$3" 0.2 "$4" "${@:5}" 2>&1)" || {
    echo "FAIL: abiloop $*: $line"
    exit 1
  }
  echo "$*: $line"
  if ! [[ "$line" =~ ^p50_ns=([0-9]+)\ mean_ns=[0-9]+\ round_trips=([0-9]+)$ ]]; then
    echo "FAIL: unexpected output: $line"
    exit 1
  fi
  if [ "${BASH_REMATCH[1]}" -le 0 ] || [ "${BASH_REMATCH[2]}" -le 10 ]; then
    echo "FAIL: $* made ${BASH_REMATCH[2]} round trips, p50 ${BASH_REMATCH[1]} ns"
    exit 1
  fi
}
trips ipcb-shm.so shm.ring 64 zero-copy
trips ipcb-shm.so shm.ring 1000 copy wait=futex
trips ipcb-shm.so shm.ring 32 zero-copy wait=spin
trips ipcb-mq.so mq.sysv 32 copy

refused() {  # WORDS COMMAND...: exits 2 saying WORDS
  local words="$1" rc=0
  shift
  "$@" >"$dir/out" 2>&1 || rc=$?
  if [ "$rc" != 2 ] || ! grep -qF -- "$words" "$dir/out"; then
    echo "FAIL: '$*' exited $rc saying: $(cat "$dir/out") (expected: $words)"
    exit 1
  fi
  echo "refused as expected: $(cat "$dir/out")"
}
loop="$dir/abiloop"
refused "has no transport shm.nope" "$loop" "$plugins/ipcb-shm.so" shm.nope 32 0.2 copy
refused "cannot load" "$loop" "$root/README.md" shm.ring 32 0.2 copy
refused "mq.sysv has no borrow and take: use copy" \
  "$loop" "$plugins/ipcb-mq.so" mq.sysv 32 0.2 zero-copy
refused "option wait=sometimes: expected spin, futex or hybrid" \
  "$loop" "$plugins/ipcb-shm.so" shm.ring 32 0.2 copy wait=sometimes
refused "usage: abiloop" "$loop" "$plugins/ipcb-shm.so" shm.ring 32 0.2 both
echo "abiloop: all checks passed"
