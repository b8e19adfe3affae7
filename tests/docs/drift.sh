#!/usr/bin/env bash
# What README.md and the man page say against what the tool does, so that neither drifts:
# README's `ipchost check` sample lists the checks that run, its examples use only options
# ipchost knows, its package names carry the build's version, the ABI baselines it names include the build's, and the man page's
# ENVIRONMENT names every IPCBENCH_ variable ipchost or a kit launcher reads.
# usage: drift.sh SOURCE_DIR IPCHOST
set -euo pipefail
src="$1" ipchost="$2"
failed=0
fail() { echo "drift: $*" >&2; failed=1; }

# 1. The check sample (README "Checking a transport") against `ipchost check --plugin pipe.fifo`.
section="$(awk '/^## Checking a transport/,/^Checks:/' "$src/README.md")"
said_checks="$(awk '$1 == "PASS" || $1 == "FAIL" {print $3}' <<<"$section")"
said_total="$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' <<<"$section")"
ran="$("$ipchost" check --plugin pipe.fifo 2>/dev/null || true)"
ran_checks="$(awk '$1 == "PASS" || $1 == "FAIL" {print $3}' <<<"$ran")"
ran_total="$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' <<<"$ran")"
[ -n "$ran_checks" ] || fail "ipchost check --plugin pipe.fifo printed no check: $ran"
[ "$said_checks" = "$ran_checks" ] ||
  fail "README's check sample lists $(echo $said_checks) where ipchost check runs $(echo $ran_checks): paste its output"
[ "$said_total" = "$ran_total" ] || fail "README's check sample says $said_total passed where $ran_total run"

# 2. Versions: package names and ABI baselines.
version="$("$ipchost" --version | awk '{print $2}')"
abi="$("$ipchost" --version | sed -n 's/.*plugin ABI \([0-9.]*\)).*/\1/p')"
for name in $(grep -rhoE "ipcbench_[0-9]+\.[0-9]+\.[0-9]+" "$src/README.md" "$src/docs" "$src/sdk/README.md" | sort -u); do
  [ "$name" = "ipcbench_$version" ] || fail "$name named in the docs, but the build is $version"
done
[ -f "$src/sdk/abi/ipcbench-$abi.abi" ] || fail "no ABI baseline sdk/abi/ipcbench-$abi.abi for the build's ABI $abi"
grep -q "the committed ABI baselines.*$abi" "$src/README.md" ||
  fail "README's layout does not name the ABI baseline $abi among the committed ones"

# 3. The man page's ENVIRONMENT against what is read. Left out on purpose: what ipchost sets for
# itself (IPCBENCH_CHECK_CORRUPT_MESSAGE around one case of `check --impl`, a launcher's
# IPCBENCH_KIT_NAME).
man="$("$ipchost" --help --format man | awk '/^\.SH ENVIRONMENT/,/^\.SH SEE ALSO/')"
read_vars="$( (grep -rhoE '(getenv|folders_from_environment)\("IPCBENCH_[A-Z_]+"' "$src/host" || true;
  grep -hoE '\$\{IPCBENCH_[A-Z_]+' "$src"/kits/*/ipcbench-*-worker "$src"/kits/dotnet/*/ipcbench-*-worker || true) |
  grep -oE 'IPCBENCH_[A-Z_]+' | sort -u)"
[ -n "$read_vars" ] || fail "found no IPCBENCH_ variable read: the search is broken"
for v in $read_vars; do
  case "$v" in IPCBENCH_CHECK_CORRUPT_MESSAGE | IPCBENCH_KIT_NAME) continue ;; esac
  grep -q "^\.B $v\$" <<<"$man" || fail "$v is read but the man page's ENVIRONMENT leaves it out (cli/option_reference.cpp, environment_docs)"
done
# 4. README's examples: every option an `ipchost ...` example uses (in a code block or inline) is
# one ipchost knows, so a renamed or removed option cannot stay in an example people copy.
known="$("$ipchost" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)"
examples="$( (grep -oE '`ipchost [^`]*`' "$src/README.md" || true
  awk '/^```/ {inb = !inb; next} inb && /^(\$ )?ipchost /' "$src/README.md") |
  grep -oE -- ' --[a-z][a-z0-9-]*' | sort -u)"
[ -n "$examples" ] || fail "found no option in README's ipchost examples: the search is broken"
for o in $examples; do
  grep -qx -- "$o" <<<"$known" || fail "README's examples use $o, which ipchost --help does not know"
done
[ "$failed" = 0 ] && echo "drift: README samples, examples, versions and the man page's environment agree with ipchost $version"
exit "$failed"
