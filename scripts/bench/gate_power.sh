#!/usr/bin/env bash
# How often does `ipchost ab`'s gate fail when it should not, and catch what it should?
# (issue 55; not a test: it measures this machine). With the slowdown.stream fixture transport
# (tests/fixtures/plugins/slowdown.c: each send spins cost_ns before it sends), it runs RUNS gate
# runs (`ipchost ab ... --fail-on-regression THRESHOLD`, default settings otherwise: --rounds
# auto, --budget BUDGET) per condition:
#   aa-quiet      the same build and options on both sides (false alarms), machine otherwise idle
#   aa-load       the same while two compiler loops load both cores (a build)
#   slow10-quiet  new = a send cost that makes the case 10 % slower (its true size measured first)
#   slow20-load   new = 20 % slower, under the same load
#   fast10-quiet  base = the 10 % slower one, new = plain: a 10 % speed-up, which must never fail
# and prints one Markdown row per condition: runs, failed (exit 1), passed (0), inconclusive
# (3), the rounds and seconds a gate run took (median), the load average seen. docs/benchmarks.md
# section 7 is kept in scripts/bench/gate_power.md, which bench.sh --write-docs carries over. The true size of each
# slowdown comes from long alternated runs first (CALIBRATE_ROUNDS rounds of CALIBRATE_DURATION s
# a side), and the cost is scaled until it is within 2 points of the target.
# Usage: RUNS=20 BUDGET=900 scripts/bench/gate_power.sh [BUILD_DIR]   (default build-test, a
# tree built with -DIPCBENCH_BUILD_TESTS=ON: the fixture plugin lives there)
# CASE="--mode throughput --size 1K" picks the case; CONDITIONS="aa-quiet slow10-quiet" a subset;
# COST10=110 COST20=250 take those costs and only measure their true size (the search by
# successive long runs is slow where the effect of a cost drifts with the machine's state).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build-test}" && pwd)"
ipchost="$build/bin/ipchost"
plugins="$build/tests/fixtures/plugins/slowdown"
runs="${RUNS:-20}"
budget="${BUDGET:-900}"
threshold="${THRESHOLD:-5}"
read -r -a case_args <<<"${CASE:---mode latency --size 32}"
conditions="${CONDITIONS:-aa-quiet aa-load slow10-quiet slow20-load fast10-quiet}"
work="$(mktemp -d)"
loader_pids=()
cleanup() {
  for p in "${loader_pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
[ -x "$ipchost" ] && [ -d "$plugins" ] || {
  echo "gate_power.sh: no $ipchost or $plugins: build with -DIPCBENCH_BUILD_TESTS=ON" >&2
  exit 2
}
base=(--plugin-dir "$plugins" --plugin slowdown.stream "${case_args[@]}")

# Two compiler loops, one per core, as a build would load them.
start_load() {
  printf '#include <map>\n#include <string>\nint main(){std::map<std::string,int> m;return m.size();}\n' >"$work/load.cpp"
  for k in 1 2; do
    (while :; do g++ -O2 -c "$work/load.cpp" -o "$work/load$k.o" 2>/dev/null; done) &
    loader_pids+=($!)
  done
}
stop_load() {
  for p in "${loader_pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  loader_pids=()
  wait 2>/dev/null || true
}

# The ratio new/base of the gated figure when new's sends cost $1 ns, from long alternated runs.
true_ratio() {
  "$ipchost" ab "${base[@]}" --rounds "${CALIBRATE_ROUNDS:-16}" --duration "${CALIBRATE_DURATION:-2}" \
    --new-arg="--opt=cost_ns=$1" --format json --quiet --output "$work/cal.json" >/dev/null 2>&1 || true
  python3 - "$work/cal.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["comparisons"] if r["gated"]]
r = next((r for r in rows if r["figure"] in ("bytes_per_sec", "latency_p50_ns")), rows[0])
ratio = r["ratio"] if r["figure"] == "bytes_per_sec" else 1 / r["ratio"]  # a rate: < 1 is slower
low, high = (r["interval"]["low"], r["interval"]["high"]) if r["interval"] else (0, 0)
if r["figure"] != "bytes_per_sec": low, high = 1 / high, 1 / low
print(f"{ratio:.4f} {low:.4f} {high:.4f}")
EOF
}

# The cost that makes the case $1 (0.10) slower: start from a guess, then scale it by what it
# did, in time (a send costing c more makes a message take t0 + k c: the ratio is t0 / (t0 + k c),
# so the extra time 1/ratio - 1 grows with c).
calibrate() {
  local target="$1" cost="${2:-2000}" measured low high tries=5
  [ -n "${3:-}" ] && cost="$3" && tries=1  # COST10 / COST20: that cost, its size measured once
  for attempt in $(seq 1 "$tries"); do
    read -r measured low high < <(true_ratio "$cost")
    echo "calibrate: cost_ns=$cost -> rate ratio $measured [$low, $high] (target $(python3 -c "print(1-$target)"))" >&2
    if [ "$attempt" = "$tries" ] || python3 -c "import sys; sys.exit(0 if abs((1-$measured)-$target) <= 0.02 else 1)"; then break; fi
    cost=$(python3 -c "print(max(20, int($cost * (1 / (1 - $target) - 1) / max(0.005, 1 / $measured - 1))))")
  done
  echo "$cost $measured $low $high"  # the cost, and its ratio as measured
}

# RUNS gate runs with the given side arguments; one Markdown row.
gate_runs() {
  local name="$1" truth="$2"
  shift 2
  local failed=0 passed=0 undecided=0 other=0 loads=() rounds=() seconds=()
  for i in $(seq 1 "$runs"); do
    local out="$work/gate-$name-$i.json" rc=0
    "$ipchost" ab "${base[@]}" "$@" --fail-on-regression "$threshold" --budget "$budget" --quiet \
      --format json --output "$out" >/dev/null 2>"$work/err" || rc=$?
    case "$rc" in 0) passed=$((passed + 1)) ;; 1) failed=$((failed + 1)) ;; 3) undecided=$((undecided + 1)) ;;
      *) other=$((other + 1)); echo "gate run $name/$i: exit $rc: $(tail -3 "$work/err")" >&2 ;; esac
    read -r r s l < <(python3 -c "import json;d=json.load(open('$out'));print(len(d['rounds']),round(d['seconds']),max(x['load_average_1m'] for x in d['rounds']))" 2>/dev/null || echo "0 0 0")
    rounds+=("$r") seconds+=("$s") loads+=("$l")
    echo "$name run $i: exit $rc, $r rounds, $s s, load up to $l" >&2
  done
  local med_r med_s load_range
  med_r=$(printf '%s\n' "${rounds[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  med_s=$(printf '%s\n' "${seconds[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  load_range=$(printf '%s\n' "${loads[@]}" | sort -n | awk 'NR==1{lo=$1} {hi=$1} END{print lo "-" hi}')
  echo "| $name | $truth | $runs | $failed | $passed | $undecided | $other | $med_r | $med_s | $load_range |"
}

echo "gate_power.sh: case ${case_args[*]} on slowdown.stream, threshold $threshold %, budget $budget s, $runs runs a condition" >&2
slow10="" slow20=""
for c in $conditions; do
  case "$c" in
    slow10-* | fast10-*) [ -z "$slow10" ] && slow10="$(calibrate 0.10 2000 "${COST10:-}")" ;;
    slow20-*) [ -z "$slow20" ] && slow20="$(calibrate 0.20 4000 "${COST20:-}")" ;;
  esac
done
echo
echo "| condition | true change (rate ratio, 95 %) | runs | failed | passed | inconclusive | error | rounds (median) | seconds (median) | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in $conditions; do
  case "$c" in
    aa-quiet) gate_runs "$c" "none (A/A)" ;;
    aa-load) start_load; gate_runs "$c" "none (A/A)"; stop_load ;;
    slow10-quiet) read -r cost r lo hi <<<"$slow10"; gate_runs "$c" "$r [$lo, $hi] (cost_ns=$cost)" --new-arg="--opt=cost_ns=$cost" ;;
    slow20-load) read -r cost r lo hi <<<"$slow20"; start_load; gate_runs "$c" "$r [$lo, $hi] (cost_ns=$cost)" --new-arg="--opt=cost_ns=$cost"; stop_load ;;
    fast10-quiet) read -r cost r lo hi <<<"$slow10"; gate_runs "$c" "1/$r (cost_ns=$cost on base)" --base-arg="--opt=cost_ns=$cost" ;;
    *) echo "gate_power.sh: unknown condition $c" >&2; exit 2 ;;
  esac
done
