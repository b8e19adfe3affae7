#!/usr/bin/env bash
# Installs what is missing, then runs every check CI runs, in stages:
#   0. clang-format: every source file formatted (scripts/format.sh)
#   1. build with -Werror and run the whole test suite through ctest
#   2. the same suite built with AddressSanitizer + UndefinedBehaviorSanitizer
#   3. the same suite built with ThreadSanitizer
#   4. clang-tidy on host/ and plugins/, while
#   5. the control-channel fuzzer runs for FUZZ_SECONDS (default 60)
#   6. the Windows build (mingw-w64) and its tests under wine (scripts/windows/test.sh)
# `scripts/test.sh --fast` runs stages 0 and 1 only. Build folders: build-test, build-asan, build-tsan,
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
suite() {  # suite <build dir> <ctest -E regex or ""> [cmake args...]
  local dir="$1" exclude="$2"
  shift 2
  cmake -S "$root" -B "$dir" -DIPCBENCH_BUILD_TESTS=ON -DIPCBENCH_GO_CACHE="$IPCBENCH_GO_CACHE" \
    "$@" >/dev/null &&
    cmake --build "$dir" -j"$jobs" &&
    (cd "$dir" && ctest --output-on-failure --no-tests=error -j"$jobs" --timeout 300 ${exclude:+-E "$exclude"})
}

stage format "$root/scripts/format.sh"
stage tests suite "${IPCBENCH_TEST_BUILD_DIR:-$root/build-test}" "" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIPCBENCH_WERROR=ON
if [ "$fast" = 0 ]; then
  # The fault suite needs a crash to be a crash: the sanitizers must not turn SIGSEGV into
  # their own report and exit code. The SDK consumer and package tests and the ABI dump need
  # plain builds (a package of a sanitized ipchost is not one anybody installs). The Java and
  # .NET kits' tests run in the plain build only: neither runtime is sanitized, and the host side
  # they drive is the one the Go and Python kit tests drive under the sanitizers, so those
  # builds leave both kits out (CMAKE_DISABLE_FIND_PACKAGE_Java, IPCBENCH_DOTNET_KIT).
  sanitized='-O1 -g1 -fno-omit-frame-pointer'
  ASAN_OPTIONS=handle_segv=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    stage asan-ubsan suite "$root/build-asan" "sdk.consumer|package.deb|abi.baseline|netns|java|dotnet" \
    -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$sanitized" -DCMAKE_CXX_FLAGS="$sanitized" \
    -DIPCBENCH_SANITIZE=address -DCMAKE_DISABLE_FIND_PACKAGE_Java=ON -DIPCBENCH_DOTNET_KIT=OFF
  TSAN_OPTIONS=handle_segv=0:halt_on_error=1:suppressions="$root/tests/tsan.supp" \
    stage tsan suite "$root/build-tsan" "sdk.consumer|package.deb|abi.baseline|netns|java|dotnet" \
    -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$sanitized" -DCMAKE_CXX_FLAGS="$sanitized" \
    -DIPCBENCH_SANITIZE=thread -DCMAKE_DISABLE_FIND_PACKAGE_Java=ON -DIPCBENCH_DOTNET_KIT=OFF
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
