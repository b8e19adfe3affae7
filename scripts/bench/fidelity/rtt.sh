#!/usr/bin/env bash
# The round-trip fidelity programs (scripts/bench/fidelity/rtt), built and run for
# scripts/bench.sh: a request–response pair on TCP over loopback in each kit's language, the
# pinger on CPU 0 and the ponger on CPU 1 as bench.sh pins ipchost's latency cases.
#   rtt.sh build WORK                       builds the Go program and the C# one (dotnet, mono)
#   rtt.sh p50 WORK PROGRAM HOW COUNT SIZE WARMUP
#       PROGRAM: go, python, java, coreclr, mono; HOW: the program's idiom (go: -, python: -|asyncio,
#       java: nio|streams, coreclr: sync|task, mono: sync); prints the median round trip in ns
#       of COUNT timed trips after WARMUP seconds of untimed ones.
set -euo pipefail
# CoreCLR leaves debugger pipes and a diagnostic socket in TMPDIR for each killed process.
export DOTNET_EnableDiagnostics=0
here="$(cd "$(dirname "$0")" && pwd)"
cmd="$1" work="$2"
case "$cmd" in
  build)
    mkdir -p "$work/gocache" "$work/coreclr/src" "$work/mono"
    if command -v go >/dev/null; then
      (cd "$here/rtt/go" && GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOPROXY=off go build -o "$work/rtt-go" .)
    fi
    if command -v dotnet >/dev/null; then
      sed -e "s|TFM|net$(dotnet --version | cut -d. -f1).0|" -e "s|SOURCE|$here/rtt/Rtt.cs|" \
        "$here/csharp/fidelity.csproj.in" >"$work/coreclr/src/Rtt.csproj"
      mkdir -p "$work/coreclr/tmp"  # MSBuild leaves empty folders in TMPDIR: here, not in /tmp
      DOTNET_CLI_HOME="$work/coreclr/home" DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
        NUGET_PACKAGES="$work/coreclr/nuget" TMPDIR="$work/coreclr/tmp" MSBUILDDISABLENODEREUSE=1 \
        dotnet build "$work/coreclr/src/Rtt.csproj" -c Release -o "$work/coreclr/Rtt" --nologo -v quiet >/dev/null
    fi
    if command -v mcs >/dev/null; then
      mcs -nologo -optimize+ -out:"$work/mono/Rtt.exe" "$here/rtt/Rtt.cs"
    fi
    ;;
  p50)
    program="$3" how="$4" count="$5" size="$6" warmup="$7"
    case "$program" in
      go) run="$work/rtt-go" how="" ;;
      python) run="python3 $here/rtt/rtt.py"; [ "$how" = asyncio ] || how="" ;;
      java) run="java -XX:-UsePerfData $here/rtt/Rtt.java" ;;
      coreclr) run="dotnet $work/coreclr/Rtt/Rtt.dll" ;;
      mono) run="mono $work/mono/Rtt.exe" ;;
      *) echo "rtt.sh: unknown program $program" >&2; exit 2 ;;
    esac
    "$here/rtt/rtt-pair.sh" "$run" "$count" "$size" "$warmup" "$how"
    ;;
  *) echo "usage: rtt.sh build WORK | p50 WORK PROGRAM HOW COUNT SIZE WARMUP" >&2; exit 2 ;;
esac
