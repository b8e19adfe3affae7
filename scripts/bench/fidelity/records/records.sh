#!/usr/bin/env bash
# The fidelity matrix's programs (scripts/bench/fidelity/records): one writer and reader of
# fixed-size records a language, on each transport and API its kit offers, built and run for
# scripts/bench.sh:
#   records.sh build WORK
#   records.sh tput WORK PROGRAM TRANSPORT API SIZE SECONDS WARMUP
#       PROGRAM is go, python, java, coreclr or mono. The reader (CPU 1) makes the endpoint and
#       writes PATH.ready with what the writer (CPU 0) opens, as bench.sh pins ipchost
#       (--affinity 0,1); the writer writes for WARMUP + SECONDS, the reader counts from WARMUP
#       after its first record. Prints the reader's bytes per second.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="$1" work="$2"
# CoreCLR leaves debugger pipes and a diagnostic socket in TMPDIR for each killed process.
export DOTNET_EnableDiagnostics=0

build() {
  mkdir -p "$work"
  if command -v go >/dev/null; then
    (cd "$here/go" && GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOPROXY=off go build -o "$work/records-go" .)
  fi
  if command -v javac >/dev/null; then
    local jdk
    jdk="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
    mkdir -p "$work/java"
    javac -d "$work/java" "$here/java/Records.java"
    cc -O2 -shared -fPIC -Wall -Werror -I"$jdk/include" -I"$jdk/include/linux" \
      -o "$work/java/librecordsqueues.so" "$here/java/records_queues.c" -lrt
  fi
  if command -v dotnet >/dev/null; then
    local tfm
    tfm="net$(dotnet --version | cut -d. -f1).0"
    mkdir -p "$work/coreclr/src"
    sed -e "s|TFM|$tfm|" -e "s|SOURCE|$here/csharp/Records.cs|" "$here/csharp/records.csproj.in" \
      >"$work/coreclr/src/Records.csproj"
    mkdir -p "$work/coreclr/tmp"  # MSBuild leaves empty folders in TMPDIR: here, not in /tmp
    DOTNET_CLI_HOME="$work/coreclr/home" DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
      NUGET_PACKAGES="$work/coreclr/nuget" TMPDIR="$work/coreclr/tmp" MSBUILDDISABLENODEREUSE=1 \
      dotnet build "$work/coreclr/src/Records.csproj" -c Release -o "$work/coreclr/out" --nologo -v quiet >/dev/null
  fi
  if command -v mcs >/dev/null; then
    mkdir -p "$work/mono"
    mcs -nologo -optimize+ -unsafe -r:System.Core.dll -out:"$work/mono/Records.exe" "$here/csharp/Records.cs"
  fi
}

command_of() {  # PROGRAM -> the command line
  case "$1" in
    go) echo "$work/records-go" ;;
    python) echo "python3 -B $here/python/records.py" ;;
    java) echo "java -XX:-UsePerfData -Djava.library.path=$work/java -cp $work/java Records" ;;
    coreclr) echo "dotnet $work/coreclr/out/Records.dll" ;;
    mono) echo "mono $work/mono/Records.exe" ;;
    *) echo "records.sh: no program $1" >&2; return 2 ;;
  esac
}

tput() {
  # globals: the EXIT trap reads them
  transport="$4" api="$5" size="$6" seconds="$7" warmup="$8" reader=""
  local program endpoint
  program="$(command_of "$3")"
  dir="$(mktemp -d)"
  # The reader removes its queue; a reader that did not get to it leaves it to this trap.
  trap '[ -z "$reader" ] || kill "$reader" 2>/dev/null || true; cleanup_queue; rm -rf "$dir"' EXIT
  # shellcheck disable=SC2086 # PROGRAM is a command line on purpose
  # Bounded: a program that never sees its end (a writer that died) ends here, not the bench.
  local limit
  limit="$(awk -v a="$seconds" -v b="$warmup" 'BEGIN {print a + b + 30}')"
  timeout "$limit" taskset -c 1 $program read "$transport" "$dir/ep" "$size" "$api" "$warmup" >"$dir/out" &
  reader=$!
  for _ in $(seq 2000); do [ -f "$dir/ep.ready" ] && break; sleep 0.01; done
  endpoint="$(cat "$dir/ep.ready")" || { echo "records.sh: the reader made no endpoint" >&2; return 1; }
  # shellcheck disable=SC2086
  timeout "$limit" taskset -c 0 $program write "$transport" "$endpoint" "$size" "$api" \
    "$(awk -v a="$seconds" -v b="$warmup" 'BEGIN {print a + b}')"
  wait "$reader" || true
  sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out" | awk '{print $1 * 1e6}'
}

cleanup_queue() {
  [ -f "$dir/ep.ready" ] || return 0
  case "$transport" in
    mq.sysv) ipcrm -q "$(cat "$dir/ep.ready")" 2>/dev/null || true ;;
    mq.posix) python3 -c 'import ctypes, sys; ctypes.CDLL("librt.so.1").mq_unlink(sys.argv[1].encode())' \
      "$(cat "$dir/ep.ready")" ;;
  esac
}

case "$cmd" in
  build) build ;;
  tput) tput "$@" ;;
  *) echo "usage: records.sh build WORK | tput WORK PROGRAM TRANSPORT API SIZE SECONDS WARMUP" >&2; exit 2 ;;
esac
