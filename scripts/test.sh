#!/usr/bin/env bash
# Installs what is missing, then runs every check CI runs, in stages:
#   0. clang-format: every source file formatted (scripts/format.sh)
#   1. build with -Werror and run the whole test suite through ctest
#   2. the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer
#   3. the same suite built with ThreadSanitizer
#   4. clang-tidy on host/ and plugins/, while
#   5. the control-channel fuzzer runs for FUZZ_SECONDS (default 60)
#   6. the Windows build (mingw-w64) and its tests under wine (scripts/windows/test.sh)
# `scripts/test.sh --fast` runs stages 0 and 1 only, and in stage 1 the plain suite alone: not
# the `long` tier (ctest label: the kits' end-to-end runs, two-host namespaces, deployment,
# packaging), which the full run includes once, in stage 1. Build folders: build-test, build-asan, build-tsan,
# build-fuzz, build-tidy, build-windows (kept between runs, so a second run only rebuilds what
# changed), and build-go-cache: the one Go build cache they share.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="$(nproc)"
fast=0
[ "${1:-}" = "--fast" ] && fast=1

"$root/scripts/install-deps.sh" --test

passed=0
failed=0
failed_stages=""
stage() {
  local name="$1"
  shift
  echo
  echo "=== stage: $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: passed in $((SECONDS - start)) s"
  else
    failed=$((failed + 1))
    failed_stages="$failed_stages $name"
    echo "=== $name: FAILED after $((SECONDS - start)) s"
  fi
}

export IPCBENCH_GO_CACHE="$root/build-go-cache"
build_tree() {  # build_tree <build dir> [cmake args...]
  local dir="$1"
  shift
  cmake -S "$root" -B "$dir" -DIPCBENCH_BUILD_TESTS=ON -DIPCBENCH_GO_CACHE="$IPCBENCH_GO_CACHE" \
    "$@" >/dev/null &&
    cmake --build "$dir" -j"$jobs"
}
# One test more than cores: a test spends part of its time waiting on processes it started and
# sockets it reads, and a test checks behaviour, never speed, so the extra load is one more
# check that none depends on an idle machine (-j4 against -j2 took the ASan suite 458 -> 417 s).
run_tests() {  # run_tests <build dir> <ctest -E regex or ""> [more ctest arguments]
  local dir="$1" exclude="$2"
  shift 2
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j"$((jobs + 1))" --timeout 300 ${exclude:+-E "$exclude"} "$@")
}

# The fault suite needs a crash to be a crash: the sanitizers must not turn SIGSEGV into their
# own report and exit code. The SDK consumer, package and image tests and the ABI dump need plain
# builds (a package of a sanitized ipchost is not one anybody installs). The Java and C# kits'
# (dotnet on CoreCLR, mono) tests run in the plain build only: neither runtime is sanitized, and the host side they drive
# is the one the Go and Python kit tests drive under the sanitizers, so those builds leave both
# kits out (CMAKE_DISABLE_FIND_PACKAGE_Java, IPCBENCH_DOTNET_KIT).
sanitized='-O1 -g1 -fno-omit-frame-pointer'
# The Chromium checks of the HTML report run in the plain build only: the browser's time is
# not our code's, and the sanitized `ipchost report` runs in the other report tests.
not_sanitized="sdk.consumer|package.deb|abi.baseline|netns|deploy|java|dotnet|mono|C#|Chromium"
sanitized_tree() {  # sanitized_tree <dir> <address|thread>
  build_tree "$1" -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$sanitized" -DCMAKE_CXX_FLAGS="$sanitized" \
    -DIPCBENCH_SANITIZE="$2" -DCMAKE_DISABLE_FIND_PACKAGE_Java=ON -DIPCBENCH_DOTNET_KIT=OFF
}
plain="${IPCBENCH_TEST_BUILD_DIR:-$root/build-test}"

stage format "$root/scripts/format.sh"
# Release, as scripts/run.sh and the package build: what users run is what is tested (and -g
# would make the build 1.6 times as long).
plain_suite() {
  build_tree "$plain" -DCMAKE_BUILD_TYPE=Release -DIPCBENCH_WERROR=ON &&
    if [ "$fast" = 1 ]; then run_tests "$plain" "" -LE long; else run_tests "$plain" ""; fi
}
# Under ASan the kit tests stay (the orchestrator's kit code is what they drive) but for the two
# full `check --impl go|python` runs, whose host code the misbehaving-kit check drives too, and
# the Python kit's byte-for-byte run, whose host side is the Go kit's (one worker protocol).
# Of the two misbehaving-kit checks, the one that miscounts stays: the other (a kit that pins
# itself elsewhere) drives the same conformance code for a minute more under ASan, as does the
# one-sided kit's check (go-channel: the checks it takes are those of `check --impl go`).
asan_suite() { sanitized_tree "$root/build-asan" address && run_tests "$root/build-asan" "$not_sanitized|check --impl (go|python) passes|the python kit on either side|pins itself elsewhere|one-sided kit"; }
# ThreadSanitizer looks for races in the orchestrator's, the agent's and the engines' threads,
# which the native cases drive; a kit case drives the same threads (the kit tests run under
# ASan), so the kit tests are left out here to keep CI within its time. So is the soak: under
# TSan a worker's peak RSS holds TSan's own history of the synchronisations it saw, which grows
# with the messages (+6 MiB from 0.5 to 4 s of shm.ring at 32 B in one CI run), so the figure
# is TSan's, not the worker's; the plain and ASan builds check it.
# (Kit tests by name: "kit", or a kit's API id such as go:bufio or python:buffered.)
tsan_suite() { sanitized_tree "$root/build-tsan" thread && run_tests "$root/build-tsan" "$not_sanitized|kit|go:|python:|check --impl|soak"; }
stage tests plain_suite
if [ "$fast" = 0 ]; then
  ASAN_OPTIONS=handle_segv=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 stage asan-ubsan asan_suite
  TSAN_OPTIONS=handle_segv=0:halt_on_error=1:suppressions="$root/tests/tsan.supp" stage tsan tsan_suite
  # The fuzzer uses one core: clang-tidy runs beside it.
  fuzz_log="$(mktemp)"
  # (errexit would end the subshell before it wrote the code: a failed build must report too.)
  (
    rc=0
    "$root/scripts/fuzz.sh" "${FUZZ_SECONDS:-60}" >"$fuzz_log" 2>&1 || rc=$?
    echo "$rc" >"$fuzz_log.rc"
  ) &
  fuzz_pid=$!
  stage clang-tidy "$root/scripts/tidy.sh"
  wait "$fuzz_pid" || true
  fuzz_stage() { cat "$fuzz_log"; return "$(cat "$fuzz_log.rc" 2>/dev/null || echo 1)"; }
  stage fuzz fuzz_stage
  rm -f "$fuzz_log" "$fuzz_log.rc"
  stage windows "$root/scripts/windows/test.sh"
fi

echo
[ "$failed" -eq 0 ] || echo "failed stages:$failed_stages"
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
