#!/usr/bin/env bash
# Runs `ipchost check` on one transport and passes only when it exits 0, prints no FAIL line,
# ran exactly the checks listed in EXPECTED (one name a line, in order: a check that silently
# stopped running, or a new one nobody looked at, fails here) and ends "N passed, 0 failed".
# usage: run_check.sh IPCHOST TRANSPORT_ID EXPECTED [ipchost options...]
set -uo pipefail
ipchost="$1" id="$2" expected="$3"
shift 3
out="$("$ipchost" check --plugin "$id" "$@" 2>&1)"
code=$?
echo "$out"
if [ "$code" != 0 ]; then
  echo "conformance: ipchost check exited with $code"
  exit 1
fi
ran="$(awk '$1 == "PASS" || $1 == "FAIL" { print $3 }' <<<"$out")"
if [ "$ran" != "$(cat "$expected")" ]; then
  echo "conformance: the checks that ran differ from $expected (< ran, > expected):"
  diff <(echo "$ran") "$expected"
  exit 1
fi
n="$(grep -c . "$expected")"
if ! grep -qx "$n passed, 0 failed" <<<"$out"; then
  echo "conformance: expected the summary '$n passed, 0 failed'"
  exit 1
fi
