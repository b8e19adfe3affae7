#!/usr/bin/env bash
# ipchost.exe driven from outside under wine (WINEPREFIX and WINEDEBUG come from ctest).
# wine's output always goes to files, stdin from /dev/null: its background services inherit
# pipes, and a pipeline would wait for them.
#   wine_tests.sh list IPCHOST FIXTURE_DIR   good plugins listed, broken DLLs rejected with codes
#   wine_tests.sh check IPCHOST TRANSPORT    `ipchost check` ends "N passed, 0 failed"
#   wine_tests.sh run IPCHOST                a JSON run with CPU and RSS of both processes
#   wine_tests.sh killed IPCHOST KILLER      a worker killed mid-run is reported with its side
#   wine_tests.sh exports DLL...             each plugin DLL exports only ipcb_plugin_entry
#   wine_tests.sh package BUILD_DIR          cpack's ZIP holds ipchost.exe, plugins, SDK, CMake package
#   wine_tests.sh template BUILD_DIR SOURCE  the SDK template, built with the toolchain file
#                                            against the installed package, passes check
#   wine_tests.sh agent IPCHOST              `serve` and a --peer run over loopback; a wrong token refused
#   wine_tests.sh leftovers IPCHOST          no worker process, no run directory left
set -uo pipefail
what="$1"
shift
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

winerun() {  # runs a Windows program; its CRLF line ends become LF
  local rc
  wine "$@" </dev/null >"$out/stdout" 2>"$out/stderr"
  rc=$?
  sed -i 's/\r$//' "$out/stdout" "$out/stderr"
  return "$rc"
}
fail() {
  echo "FAIL: $*"
  echo "--- stdout"
  cat "$out/stdout" 2>/dev/null
  echo "--- stderr"
  cat "$out/stderr" 2>/dev/null
  exit 1
}
expect() {  # expect FILE REGEX WHY
  grep -Eq -- "$2" "$out/$1" || fail "$3 (no line matching /$2/ in $1)"
}

# end_within PID TENTHS WHY: waits at most TENTHS tenths of a second for background process PID
# to end; if it is still running then, kills it and fails with WHY.
end_within() {
  local pid="$1" tenths="$2" why="$3"
  for _ in $(seq 1 "$tenths"); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid"
  fail "$why"
}

# The folder wine's %TEMP% maps to, where run directories go.
temp_dir() {
  local user
  user="$(id -un)"
  for d in "$WINEPREFIX/drive_c/users/$user/AppData/Local/Temp" "$WINEPREFIX/drive_c/users/$user/Temp"; do
    [ -d "$d" ] && { echo "$d"; return; }
  done
}

case "$what" in
list)
  exe="$1" fixtures="$2"
  winerun "$exe" --list --verbose --plugin-dir "$fixtures"
  rc=$?
  [ "$rc" -eq 0 ] || fail "--list exited $rc"
  expect stdout '^pipe\.named +pipe ' "pipe.named is not listed"
  expect stdout 'ipcb-junk\.dll: rejected \[IPCB-LOAD-001\]: cannot be loaded.*\(error 193\)' \
    "the junk DLL is not rejected as unloadable with Windows' reason"
  expect stdout 'ipcb-entry_crash_windows\.dll: rejected \[IPCB-LOAD-011\].*exception 0xC0000005 \(access violation\)' \
    "the crashing entry point is not rejected with its exception"
  expect stdout 'ipcb-dllmain_hang_windows\.dll: rejected \[IPCB-LOAD-011\].*hung for more than' \
    "the hanging DllMain is not rejected as hung"
  expect stdout 'ipcb-needs_missing_dll\.dll: rejected \[IPCB-LOAD-001\]: cannot be loaded: .*not found: ipcbench_no_such_dependency\.dll' \
    "the DLL with a missing dependency is not rejected naming it"
  expect stdout 'Rejected files \(4\)' "expected exactly the four broken files rejected"
  # The same folder through IPCBENCH_PLUGIN_PATH, whose entries Windows separates with ';'.
  IPCBENCH_PLUGIN_PATH="$out/none;$fixtures" winerun "$exe" --list --verbose
  expect stdout 'Rejected files \(4\)' "IPCBENCH_PLUGIN_PATH=A;B did not search B"
  ;;
check)
  exe="$1" transport="$2"
  # Under wine a thousand opens take long, the more so on a busy machine: steps get 240 s.
  winerun "$exe" check --plugin "$transport" --timeout 240
  rc=$?
  [ "$rc" -eq 0 ] || fail "check exited $rc"
  expect stdout '^[1-9][0-9]* passed, 0 failed$' "check did not pass every check"
  if grep -q '^FAIL' "$out/stdout"; then fail "a check failed"; fi
  ;;
run)
  exe="$1"
  # The oldest comparison this tool reproduces, in small: named pipe against TCP loopback.
  winerun "$exe" --plugin pipe.named,socket.tcp --mode throughput --size 64K --count 2000 \
    --format json
  rc=$?
  [ "$rc" -eq 0 ] || fail "the run exited $rc"
  jq -e '[.results[].transport] == ["pipe.named", "socket.tcp"]' "$out/stdout" >/dev/null ||
    fail "expected one pipe.named and one socket.tcp result"
  jq -e 'all(.results[]; .status == "ok" and .throughput.bytes_per_sec > 0)' "$out/stdout" \
    >/dev/null || fail "a result is not ok, or has no throughput"
  jq -e 'all(.results[]; .integrity | .messages_received == 2000 and .corrupted == 0 and .lost == 0)' \
    "$out/stdout" >/dev/null || fail "not every message arrived intact"
  for side in sender receiver; do
    jq -e --arg s "$side" 'all(.results[]; .[$s] | (.cpu_user_s + .cpu_sys_s) > 0 and .max_rss_kib > 0)' \
      "$out/stdout" >/dev/null || fail "no CPU time or peak RSS for the $side"
  done
  jq -e '.environment.os == "Windows"' "$out/stdout" >/dev/null || fail "the environment does not say Windows"
  ;;
iocp)
  exe="$1"
  # Many named pipe and TCP streams on one I/O completion port per engine thread (ABI 1.2
  # completion).
  winerun "$exe" --plugin pipe.named,socket.tcp --streams 40 --io iocp --threads 2 --count 25 \
    --size 3000 \
    --mode both --verify --warmup 0.05 --format json
  rc=$?
  [ "$rc" -eq 0 ] || fail "the run exited $rc"
  jq -e '[.results[].transport] == ["pipe.named", "pipe.named", "socket.tcp", "socket.tcp"]' \
    "$out/stdout" >/dev/null || fail "expected throughput and latency of pipe.named and socket.tcp"
  jq -e 'all(.results[]; .status == "ok" and .io == "iocp" and .threads == 2)' "$out/stdout" \
    >/dev/null || fail "a result is not ok, or did not run on --io iocp"
  jq -e 'all(.results[]; .integrity | .messages_received == 1000 and .corrupted == 0 and .lost == 0)' \
    "$out/stdout" >/dev/null || fail "not every message of the 40 streams arrived intact"
  jq -e 'all(.results[]; .data_path | contains("submit_send"))' "$out/stdout" >/dev/null ||
    fail "the data path does not name the completion calls"
  ;;
killed)
  exe="$1" killer="$2"
  wine "$exe" --plugin pipe.named --mode throughput --size 1K --duration 20 --format json </dev/null \
    >"$out/stdout" 2>"$out/stderr" &
  run=$!
  # Wait (bounded) for both workers to run, then end one with TerminateProcess, as Windows ends
  # a crashed or killed process.
  killed=0
  for _ in $(seq 1 150); do
    if [ "$(pgrep -fc 'ipchost\.exe worker' || true)" -ge 2 ]; then
      sleep 1
      wine "$killer" </dev/null >"$out/killer" 2>&1 && killed=1
      break
    fi
    sleep 0.1
  done
  [ "$killed" = 1 ] || { kill "$run" 2>/dev/null; fail "no worker to kill"; }
  # A death is noticed at once; 10 s of the 20 s run is the bound.
  end_within "$run" 100 "ipchost did not end within 10 s of a worker's death"
  wait "$run"
  rc=$?
  sed -i 's/\r$//' "$out/stdout" "$out/stderr"
  [ "$rc" -ne 0 ] || fail "ipchost exited 0 although a worker died"
  jq -e '.results[0].status == "failed"' "$out/stdout" >/dev/null || fail "the case is not failed"
  jq -e '.results[0].error | test("the (sender|receiver) process died")' "$out/stdout" >/dev/null ||
    fail "the error does not name the side that died"
  ;;
exports)
  for dll in "$@"; do
    x86_64-w64-mingw32-objdump -p "$dll" >"$out/stdout" 2>&1 || fail "objdump $dll"
    names="$(awk '/\[Ordinal\/Name Pointer\] Table/{t=1; next} t && /^[ \t]*\[/{print $NF} t && /^$/{t=0}' "$out/stdout")"
    [ "$names" = "ipcb_plugin_entry" ] || fail "$dll exports: ${names:-nothing}"
  done
  ;;
package)
  build="$1"
  (cd "$build" && cpack -G ZIP -B "$out/package") >"$out/stdout" 2>"$out/stderr" || fail "cpack failed"
  zip="$(ls "$out"/package/ipcbench-*.zip 2>/dev/null | head -n1)"
  [ -n "$zip" ] || fail "cpack made no ZIP"
  cmake -E tar tf "$zip" >"$out/stdout" 2>"$out/stderr" || fail "the ZIP cannot be read"
  for member in bin/ipchost.exe bin/plugins/ipcb-pipe.dll bin/plugins/ipcb-socket.dll \
    bin/plugins/ipcb-udp.dll bin/plugins/ipcb-shm.dll include/ipcbench/transport.h include/ipcbench/error_format.h \
    lib/cmake/ipcbench/ipcbenchConfig.cmake lib/cmake/ipcbench/ipcbenchPlugin.cmake; do
    expect stdout "/$member\$" "the ZIP lacks $member"
  done
  if grep -Eq 'tests?/|kill_worker|fixture' "$out/stdout"; then fail "test files in the ZIP"; fi
  ;;
template)
  build="$1" src="$2"
  cmake --install "$build" --prefix "$out/prefix" >"$out/stdout" 2>"$out/stderr" || fail "install"
  cmake -S "$src/sdk/template" -B "$out/template" \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/mingw-w64-toolchain.cmake" \
    -DCMAKE_PREFIX_PATH="$out/prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$out/stdout" 2>"$out/stderr" ||
    fail "the template does not configure against the installed SDK"
  cmake --build "$out/template" >"$out/stdout" 2>"$out/stderr" || fail "the template does not build"
  dll="$out/template/ipcbench-plugins/ipcb-mytransport.dll"
  [ -f "$dll" ] || fail "no $dll"
  x86_64-w64-mingw32-objdump -p "$dll" | grep 'DLL Name: libwinpthread' >/dev/null &&
    fail "the template DLL needs libwinpthread-1.dll"
  winerun "$out/prefix/bin/ipchost.exe" check --plugin-dir "$out/template/ipcbench-plugins" \
    --plugin mytransport --timeout 240
  rc=$?
  [ "$rc" -eq 0 ] || fail "check of the template exited $rc"
  expect stdout '^# mytransport\.stream' "the template's transport was not checked"
  expect stdout '^[1-9][0-9]* passed, 0 failed$' "the template did not pass every check"
  ;;
agent)
  exe="$1"
  port=$((40000 + RANDOM % 20000))
  token="wine-test-token-$RANDOM$RANDOM"
  # wine's token is elevated, which the agent refuses without --allow-root (as root on Linux).
  wine "$exe" serve --bind "127.0.0.1:$port" --token "$token" --once --allow-root </dev/null \
    >"$out/agent.out" 2>"$out/agent.err" &
  agent=$!
  for _ in $(seq 1 100); do
    grep -q 'serving on' "$out/agent.err" 2>/dev/null && break
    kill -0 "$agent" 2>/dev/null || { cat "$out/agent.err"; fail "the agent did not start"; }
    sleep 0.1
  done
  winerun "$exe" --peer "127.0.0.1:$port" --token wrong-token --plugin socket.tcp \
    --mode throughput --size 1K --count 10 --format json
  expect stdout 'could not prove it holds this token' "a wrong token was not refused with its reason"
  winerun "$exe" --peer "127.0.0.1:$port" --token "$token" --plugin socket.tcp \
    --mode throughput --size 64K --count 1000 --format json
  rc=$?
  [ "$rc" -eq 0 ] || { kill "$agent" 2>/dev/null; fail "the run through the agent exited $rc"; }
  jq -e '.results[0] | .status == "ok" and .integrity.messages_received == 1000' "$out/stdout" \
    >/dev/null || { kill "$agent" 2>/dev/null; fail "the run through the agent is not ok"; }
  end_within "$agent" 100 "the --once agent did not stop after its client's run"
  sed -i 's/\r$//' "$out/agent.err"
  grep -q 'ended the handshake after the challenge' "$out/agent.err" || fail "the agent did not log the refusal"
  ;;
leftovers)
  exe="$1"
  # Live ipchost.exe processes of this wine prefix (wine runs each as a Linux process named after
  # the .exe, with WINEPREFIX in its environment): another ipchost beside this suite is not ours.
  # Zombies of killed workers are the reaper's business.
  : >"$out/stdout"
  while read -r pid stat args; do
    case "$stat" in Z*) continue ;; esac
    case "$args" in *ipchost.exe*) ;; *) continue ;; esac
    [ "$pid" = "$$" ] && continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -x "WINEPREFIX=$WINEPREFIX" >/dev/null &&
      echo "$pid $args" >>"$out/stdout"
  done < <(ps -eo pid=,stat=,args=)
  [ -s "$out/stdout" ] && fail "ipchost.exe processes of this prefix are still running"
  tmp="$(temp_dir)"
  [ -n "$tmp" ] || fail "no %TEMP% folder in $WINEPREFIX"
  ls -d "$tmp"/ipcbench-run-* >"$out/stdout" 2>/dev/null && fail "run directories left in $tmp"
  ;;
*)
  echo "wine_tests.sh: unknown test '$what'" >&2
  exit 2
  ;;
esac
[ "$what" = template ] && tail -3 "$out/stdout"
echo "ok: $what"
