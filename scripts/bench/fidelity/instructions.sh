#!/usr/bin/env bash
# Instructions a message, a kit's side against its program's, under callgrind: the figure that
# repeats whatever the machine's load (the fidelity rows' MB/s move by a fifth between runs
# here). For the kits whose runtime runs under valgrind: python (CPython) and mono.
#
#   instructions.sh KIT TRANSPORT [API] [IPCHOST]
#       KIT python or mono (dotnet with COUNT=syscalls only: CoreCLR's JIT does not run usefully
#       under valgrind); API as the kit names it (none: the kit's default). The program is
#       scripts/bench/fidelity/records' of that language with the same API.
#   SIDES=sender (or receiver) counts one side only; KEEP=DIR keeps the last callgrind files.
#   COUNT=syscalls counts instead the system calls and context switches a message of each CPU
#       (perf stat -a -A: the sender's CPU 0, the receiver's 1), kit with kit and program with
#       program at full speed for 2 s (--affinity 0,1 and taskset): what callgrind does not see,
#       how the two sides share the transport (how much a receive finds, how often a side
#       sleeps). One run each: these move with the run's regime.
#
# Each side is counted on its own, its peer at full speed outside valgrind, so both find what
# a faster peer leaves them: the kit's side against ipchost's native peer (--impl sender=KIT or
# receiver=KIT, --warmup 0), the program's side against the program's other side. Two runs of
# different lengths; (instructions of the longer - of the shorter) / (its messages - the
# shorter's) is a message's cost, start-up, imports and compiling cancelling out. A datagram
# receiver is not counted: under valgrind it loses most of what a full-speed peer sends.
#
# Prints one line a side: kit and program instructions a message and their ratio.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
kit="$1" transport="$2" api="${3:-}" ipchost="${4:-$root/build/bin/ipchost}"
[ "${COUNT:-}" = syscalls ] || command -v valgrind >/dev/null ||
  { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
impl="$kit${api:+:$api}"
work="$(mktemp -d)"
trap '[ -z "${KEEP:-}" ] || cp "$work"/*.out "$KEEP"/ 2>/dev/null; rm -rf "$work"' EXIT
vg=(valgrind -q --vgdb=no --tool=callgrind)  # no gdbserver FIFOs in /tmp, also from a run killed

# The runtime under callgrind, all but the runtime-version question (answered within 5 s).
mkdir -p "$work/bin"
wrap() {  # NAME REAL
  cat >"$work/bin/$1" <<EOF
#!/bin/sh
for a in "\$@"; do [ "\$a" = --runtime-version ] && exec "$2" "\$@"; done
exec ${vg[*]} --callgrind-out-file="$work/kit.out" "$2" "\$@"
EOF
  chmod 755 "$work/bin/$1"
}
case "$kit" in
  python)
    real="$(python3 -c 'import sys; print(sys.executable)')"
    wrap python3 "$real"  # the kit's manifest starts `python3` from PATH
    kit_env=(env "PATH=$work/bin:$PATH")
    program=("$real" -B "$root/scripts/bench/fidelity/records/python/records.py")
    papi="${api:-os}" skipped=17 ;;  # records.py's meter starts at its 17th record
  mono)
    real="$(command -v mono)"
    wrap mono "$real"
    kit_env=(env "IPCBENCH_MONO=$work/bin/mono")
    "$root/scripts/bench/fidelity/records/records.sh" build "$work/records" >/dev/null 2>&1 || true
    [ -f "$work/records/mono/Records.exe" ] || { echo "instructions.sh: mcs could not build Records.cs" >&2; exit 2; }
    program=("$real" "$work/records/mono/Records.exe")
    papi="${api:-default}" skipped=16 ;;  # Records.cs's meter starts at its 16th
  dotnet)
    [ "${COUNT:-}" = syscalls ] ||
      { echo "instructions.sh: CoreCLR is counted with COUNT=syscalls only (its JIT under valgrind is no figure)" >&2; exit 2; }
    "$root/scripts/bench/fidelity/records/records.sh" build "$work/records" >/dev/null 2>&1 || true
    [ -f "$work/records/coreclr/out/Records.dll" ] || { echo "instructions.sh: dotnet could not build Records.cs" >&2; exit 2; }
    kit_env=(env)
    # Tier 1 from the start, as the kit's launcher asks (docs/benchmarks.md, the tiering fix).
    program=(env DOTNET_TC_CallCountingDelayMs=0 DOTNET_EnableDiagnostics=0 dotnet "$work/records/coreclr/out/Records.dll")
    papi="${api:-default}" skipped=16 ;;
  *) echo "instructions.sh: KIT is python or mono (a runtime valgrind runs), or dotnet with COUNT=syscalls" >&2; exit 2 ;;
esac

# TCP with the runtime's own default, as bench.sh's matrix runs it: asyncio's streams set
# TCP_NODELAY, CPython's socket and .NET leave Nagle on (the programs do not touch it).
tcp_opt=()
case "$transport:$impl" in
  socket.tcp:python:asyncio) ;;
  socket.tcp:*) tcp_opt=(--opt nodelay=0) ;;
esac

ir_of() { sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$1"; }

kit_run() {  # ROLE COUNT -> "INSTRUCTIONS MESSAGES" (no warm-up: the count is every message)
  rm -f "$work/kit.out"
  "${kit_env[@]}" "$ipchost" --plugin "$transport" --mode throughput --size 1K --count "$2" \
    --warmup 0 --impl "$1=$impl" ${tcp_opt[@]+"${tcp_opt[@]}"} --format json -q >"$work/kit.json"
  echo "$(ir_of "$work/kit.out") $(jq '.results[0].integrity.messages_received' "$work/kit.json")"
}

program_pair() {  # READER_PREFIX WRITER_PREFIX SECONDS (array names) -> the reader's record count
  local -n before_read="$1" before_write="$2"
  local reader
  rm -f "$work/ep" "$work/ep.ready"
  "${before_read[@]}" "${program[@]}" read "$transport" "$work/ep" 1024 "$papi" 0 >"$work/read.txt" 2>/dev/null &
  reader=$!
  for _ in $(seq 6000); do [ -f "$work/ep.ready" ] && break; sleep 0.01; done
  "${before_write[@]}" "${program[@]}" write "$transport" "$(cat "$work/ep.ready")" 1024 "$papi" "$3" 2>/dev/null
  wait "$reader"
  awk -F'[= ]' -v k="$skipped" '{print int($4 * $6 + 0.5) + k}' "$work/read.txt"
}

program_run() {  # SIDE SECONDS -> "INSTRUCTIONS MESSAGES"
  local rd=() wr=() msgs
  rm -f "$work/prog.out"
  [ "$1" = receiver ] && rd=("${vg[@]}" --callgrind-out-file="$work/prog.out") ||
    wr=("${vg[@]}" --callgrind-out-file="$work/prog.out")
  msgs="$(program_pair rd wr "$2")"
  echo "$(ir_of "$work/prog.out") $msgs"
}

per_message() {  # "IR1 N1" "IR2 N2"
  awk -v a="$1" -v b="$2" 'BEGIN {split(a, x, " "); split(b, y, " "); printf "%.0f", (y[1] - x[1]) / (y[2] - x[2])}'
}

syscalls_run() {  # WHO SECONDS -> per CPU "SYSCALLS0 SWITCHES0 SYSCALLS1 SWITCHES1 MESSAGES"
  local who="$1" seconds="$2"
  local stat=(perf stat -a -A -x, -e raw_syscalls:sys_enter,context-switches -o "$work/stat.txt" --)
  if [ "$who" = kit ]; then
    "${stat[@]}" "$ipchost" --plugin "$transport" --mode throughput --size 1K --duration "$seconds" \
      --warmup 0 --affinity 0,1 --impl "$impl" ${tcp_opt[@]+"${tcp_opt[@]}"} --format json -q >"$work/kit.json"
    msgs="$(jq '.results[0].integrity.messages_received' "$work/kit.json")"
  else
    local rd=(taskset -c 1) wr=("${stat[@]}" taskset -c 0)
    msgs="$(program_pair rd wr "$seconds")"
  fi
  awk -F, -v m="$msgs" '$1 ~ /^CPU[01]$/ {v[$1 "," $4] = $2}
    END {print v["CPU0,raw_syscalls:sys_enter"] + 0, v["CPU0,context-switches"] + 0,
               v["CPU1,raw_syscalls:sys_enter"] + 0, v["CPU1,context-switches"] + 0, m}' "$work/stat.txt"
}

if [ "${COUNT:-}" = syscalls ]; then
  for who in kit program; do
    awk -v a="$(syscalls_run "$who" 2)" -v w="$who" -v i="$impl" -v t="$transport" 'BEGIN {
      split(a, x, " "); n = x[5]
      printf "%s %s %-7s a message: sender CPU %.2f system calls %.3f switches, receiver CPU %.2f system calls %.3f switches (%d messages, %.0f a second)\n",
        i, t, w, x[1] / n, x[2] / n, x[3] / n, x[4] / n, n, n / 2}'
  done
  exit 0
fi

for side in ${SIDES:-sender receiver}; do
  if [ "$side" = receiver ] && [ "$transport" = udp.inet ]; then
    echo "$impl $transport receiver: not counted (a datagram receiver under valgrind loses most of what it is sent)"
    continue
  fi
  k1="$(kit_run "$side" 10000)" k2="$(kit_run "$side" 30000)"
  p1="$(program_run "$side" 1)" p2="$(program_run "$side" 3)"
  k="$(per_message "$k1" "$k2")" p="$(per_message "$p1" "$p2")"
  printf '%s %s %-8s kit %6s  program %6s instructions a message  kit/program %.2f  (kit %s, %s; program %s, %s)\n' \
    "$impl" "$transport" "$side" "$k" "$p" "$(awk -v a="$k" -v b="$p" 'BEGIN {print a / b}')" "$k1" "$k2" "$p1" "$p2"
done
