#!/usr/bin/env bash
# The C# fidelity programs (scripts/bench/fidelity/csharp), built and run for scripts/bench.sh:
#   csharp.sh build WORK                          builds each for .NET (dotnet) and Mono (mcs)
#   csharp.sh tput WORK RUNTIME PROGRAM SECONDS SIZE [WARMUP]
#       runs PROGRAM (NamedPipeApm, SocketApm; UdpPoh on coreclr) on RUNTIME (coreclr, mono), the reader on CPU 1
#       and the writer on CPU 0 as bench.sh pins ipchost (--affinity 0,1), and prints the
#       reader's bytes per second, counted from WARMUP seconds after its first byte (give it
#       the kit's warm-up: the figures then compare the same steady state).
#   csharp.sh figures WORK RUNTIME PROGRAM SECONDS SIZE [WARMUP]
#       the same run; prints "MB/s writer-CPU% reader-CPU% writer-RSS-MiB reader-RSS-MiB"
#       (GNU time's figures of each whole process).
set -euo pipefail
# CoreCLR leaves debugger pipes and a diagnostic socket in TMPDIR for each killed process.
export DOTNET_EnableDiagnostics=0
here="$(cd "$(dirname "$0")" && pwd)"
cmd="$1" work="$2"
programs=(NamedPipeApm SocketApm UdpPoh)  # UdpPoh: .NET 8 on (the pinned object heap, SocketAddress)

build() {
  mkdir -p "$work/coreclr" "$work/mono"
  local tfm p
  if command -v dotnet >/dev/null; then
    tfm="net$(dotnet --version | cut -d. -f1).0"
    for p in "${programs[@]}"; do
      mkdir -p "$work/coreclr/src-$p"
      sed -e "s|TFM|$tfm|" -e "s|SOURCE|$here/csharp/$p.cs|" "$here/csharp/fidelity.csproj.in" \
        >"$work/coreclr/src-$p/$p.csproj"
      mkdir -p "$work/coreclr/tmp"  # MSBuild leaves empty folders in TMPDIR: here, not in /tmp
      DOTNET_CLI_HOME="$work/coreclr/home" DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
        NUGET_PACKAGES="$work/coreclr/nuget" TMPDIR="$work/coreclr/tmp" MSBUILDDISABLENODEREUSE=1 \
        dotnet build "$work/coreclr/src-$p/$p.csproj" -c Release -o "$work/coreclr/$p" --nologo -v quiet >/dev/null
    done
  fi
  if command -v mcs >/dev/null; then
    for p in NamedPipeApm SocketApm; do
      mcs -nologo -optimize+ -r:System.Core.dll -out:"$work/mono/$p.exe" "$here/csharp/$p.cs"
    done
  fi
}

run_of() {  # RUNTIME PROGRAM -> the command
  case "$1" in
    coreclr) echo "dotnet $work/coreclr/$2/$2.dll" ;;
    mono) echo "mono $work/mono/$2.exe" ;;
  esac
}

tput() {
  run_pair "$@"
  sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out" | awk '{print $1 * 1e6}'
  rm -rf "$dir"
}

figures() {
  run_pair "$@"
  local mb
  mb="$(sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out")"
  # The last line: time(1) puts "Command terminated by signal" first for a writer ended by its reader.
  read -r wcpu wrss < <(tail -n 1 "$dir/writer.time")
  read -r rcpu rrss < <(tail -n 1 "$dir/reader.time")
  awk -v m="${mb:-0}" -v wc="${wcpu%\%}" -v rc="${rcpu%\%}" -v wr="$wrss" -v rr="$rrss" \
    'BEGIN {printf "%.1f %s %s %.1f %.1f\n", m, wc, rc, wr / 1024, rr / 1024}'
  rm -rf "$dir"
}

run_pair() {  # sets dir: the reader's output and both processes' CPU % and peak RSS (KiB)
  local runtime="$1" program="$2" seconds="$3" size="$4" warmup="${5:-0}" address
  dir="$(mktemp -d)"
  case "$program" in
    NamedPipeApm) address="$dir/pipe" ;;
    *) address="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" ;;
  esac
  local run
  run="$(run_of "$runtime" "$program")"
  taskset -c 1 /usr/bin/time -o "$dir/reader.time" -f '%P %M' $run read "$address" "$seconds" "$size" "$warmup" >"$dir/out" &
  local reader=$!
  for _ in $(seq 200); do  # the reader is listening: the pipe's socket file, or the port
    if [ "$program" = NamedPipeApm ]; then [ -S "$address" ] && break
    elif [ "$program" = UdpPoh ]; then ss -lun "sport = :$address" | grep -q UNCONN && break
    else ss -ltn "sport = :$address" | grep -q LISTEN && break; fi
    sleep 0.02
  done
  if [ "$program" = UdpPoh ]; then
    # An unconnected UDP sender never hears that its reader is gone: the reader's end ends it.
    taskset -c 0 /usr/bin/time -o "$dir/writer.time" -f '%P %M' $run write "$address" "$seconds" "$size" "$warmup" &
    local writer=$!
    wait "$reader"
    pkill -TERM -P "$writer" 2>/dev/null || true
    wait "$writer" || true
  else
    taskset -c 0 /usr/bin/time -o "$dir/writer.time" -f '%P %M' $run write "$address" "$seconds" "$size" "$warmup"
    wait "$reader"
  fi
}

case "$cmd" in
  build) build ;;
  tput) shift 2; tput "$@" ;;
  figures) shift 2; figures "$@" ;;
  *) echo "usage: csharp.sh build WORK | tput|figures WORK RUNTIME PROGRAM SECONDS SIZE [WARMUP]" >&2; exit 2 ;;
esac
