#!/usr/bin/env bash
# S3's fidelity program (scripts/bench/fidelity/sysv), built and run for scripts/bench.sh:
#   sysv.sh build WORK                       compiles sysv_jni.c into WORK/libsysvloop.so
#   sysv.sh tput WORK COUNT SIZE WARMUP      a Java writer (CPU 0) and reader (CPU 1) of COUNT
#       SIZE-byte messages on a private System V queue, one JNI call a message; prints the
#       reader's bytes per second. The queue is removed by the reader, and by this script when
#       the reader did not get to it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="$1" work="$2"
case "$cmd" in
  build)
    jdk="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
    mkdir -p "$work"
    cc -O2 -shared -fPIC -Wall -Werror -I"$jdk/include" -I"$jdk/include/linux" \
      -o "$work/libsysvloop.so" "$here/sysv/sysv_jni.c"
    ;;
  tput)
    count="$3" size="$4" warmup="$5"
    dir="$(mktemp -d)"
    trap 'if [ -s "$dir/id" ]; then ipcrm -q "$(cat "$dir/id")" 2>/dev/null || true; fi; rm -rf "$dir"' EXIT
    java=(java -XX:-UsePerfData -Djava.library.path="$work" "$here/sysv/SysvLoop.java")
    taskset -c 1 "${java[@]}" read "$dir/id" "$count" "$size" "$warmup" >"$dir/out" &
    reader=$!
    for _ in $(seq 1000); do [ -s "$dir/id" ] && break; sleep 0.01; done
    taskset -c 0 "${java[@]}" write "$dir/id" "$count" "$size"
    wait "$reader"
    sed -n 's/.*mb_per_sec=\([0-9.]*\).*/\1/p' "$dir/out" | awk '{print $1 * 1e6}'
    ;;
  *) echo "usage: sysv.sh build WORK | tput WORK COUNT SIZE WARMUP" >&2; exit 2 ;;
esac
