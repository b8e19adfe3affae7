#!/usr/bin/env bash
# A kit's own unit tests over the shared vectors (protocol/vectors): the same tables the host's
# unit tests run (tests/unit/test_protocol_vectors.cpp), run by the kit's own runner from its
# runtime alone: go test, python3 -m unittest, a JDK-only Java runner, a C# runner built by mcs
# (Mono) or `dotnet build` (CoreCLR). Exits 77 (skipped) when the kit's runtime is not here.
#   kit_vectors.sh go|python|java|mono|dotnet SOURCE_DIR BUILD_DIR
set -euo pipefail
kit="$1" src="$2" build="$3"
vectors="$src/protocol/vectors"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
skip() { echo "skipped: $1"; exit 77; }
case "$kit" in
go)
  command -v go >/dev/null || skip "no go (scripts/install-deps.sh --kits)"
  cd "$src/kits/go"
  GOCACHE="${IPCBENCH_GO_CACHE:-$build/kits/go-cache}" GOPATH="$work/go-path" GOPROXY=off \
    GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 IPCBENCH_VECTORS="$vectors" \
    go test -count=1 -v ./ipcbench 2>&1 | grep -E '^(---|ok|FAIL|\s+vectors_test)' ;;
python)
  command -v python3 >/dev/null || skip "no python3"
  PYTHONDONTWRITEBYTECODE=1 IPCBENCH_VECTORS="$vectors" \
    python3 -m unittest discover -s "$src/kits/python/tests" -v ;;
java)
  jar="$build/lib/ipcbench/kits/java/ipcbench-java-kit.jar"
  command -v javac >/dev/null && [ -f "$jar" ] || skip "no JDK or no Java kit built"
  javac -Xlint:all -Werror --release 17 -d "$work" -cp "$jar" \
    "$src/kits/java/test/ipcbench/kit/VectorsTest.java"
  java -cp "$jar:$work" ipcbench.kit.VectorsTest "$vectors" ;;
mono)
  command -v mcs >/dev/null && command -v mono >/dev/null || skip "no mcs and mono"
  mcs -nologo -unsafe -warn:4 -warnaserror+ -r:System.dll -r:System.Core.dll \
    -main:IpcBench.Kit.VectorsTest -out:"$work/vectors.exe" "$src"/kits/dotnet/src/*.cs \
    "$src/kits/dotnet/test/VectorsTest.cs"
  mono "$work/vectors.exe" "$vectors" ;;
dotnet)
  command -v dotnet >/dev/null || skip "no .NET SDK"
  tfm="net$(dotnet --version | cut -d. -f1).0"
  sed -e "s|@TFM@|$tfm|" -e "s|@SOURCES@|$src/kits/dotnet|" \
    "$src/kits/dotnet/test/vectors.csproj.in" > "$work/vectors.csproj"
  mkdir -p "$work/tmp"  # MSBuild leaves empty folders in TMPDIR: here, not in /tmp
  DOTNET_CLI_HOME="$work/home" DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 NUGET_PACKAGES="$build/kits/dotnet-coreclr/nuget" \
    TMPDIR="$work/tmp" MSBUILDDISABLENODEREUSE=1 dotnet build "$work/vectors.csproj" -c Release -o "$work/out" \
    --nologo -v quiet -p:UseSharedCompilation=false >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; exit 1; }
  DOTNET_CLI_HOME="$work/home" dotnet "$work/out/vectors.dll" "$vectors" ;;
*) echo "kit_vectors.sh: unknown kit '$kit' (go, python, java, mono, dotnet)" >&2; exit 2 ;;
esac
