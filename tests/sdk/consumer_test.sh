#!/usr/bin/env bash
# The third-party path, end to end: install ipcbench into a temporary prefix, build the SDK
# template and the example plugins from their own folders using only find_package (and the
# template once more with only pkg-config), drop them into a plugin folder, then run
# ipchost --list, ipchost check and a short benchmark on them with the installed ipchost.
# Usage: consumer_test.sh <ipcbench build dir> <ipcbench source dir>
set -euo pipefail
build_dir="$1"
src_dir="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-sdk-XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
plugins="$work/plugins"
mkdir -p "$plugins"
fail() { echo "consumer_test: FAIL: $*" >&2; exit 1; }

echo "== install into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
ipchost="$prefix/bin/ipchost"
[ -x "$ipchost" ] || fail "no ipchost installed"
"$ipchost" --list | grep -q "pipe.fifo" || fail "the installed ipchost does not find its own plugins"

for project in template examples/nng_pair examples/zmq_pair; do
  name="$(basename "$project")"
  echo "== build sdk/$project against the installed package"
  flags="-Wall -Wextra -Werror"
  cmake -S "$src_dir/sdk/$project" -B "$work/build-$name" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_BUILD_TYPE=Release --no-warn-unused-cli -DCMAKE_C_FLAGS="$flags" \
        -DCMAKE_CXX_FLAGS="$flags" >/dev/null
  cmake --build "$work/build-$name" >/dev/null
  cp "$work/build-$name"/ipcbench-plugins/*.so "$plugins/"
done

echo "== build the template with pkg-config only (no CMake)"
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name ipcbench.pc | head -n1)")"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags ipcbench) -DMY_PLUGIN_NAME='"pctemplate"' \
   "$src_dir/sdk/template/my_transport.c" $(pkg-config --variable=plugin_ldflags ipcbench) \
   -o "$plugins/ipcb-pctemplate.so"

echo "== every plugin exports exactly ipcb_plugin_entry"
for so in "$plugins"/*.so; do
  exports="$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u | tr '\n' ' ')"
  [ "$exports" = "ipcb_plugin_entry " ] || fail "$so exports: $exports"
done

echo "== ipchost --list"
list="$("$ipchost" --plugin-dir "$plugins" --list)"
echo "$list"
for id in mytransport.stream nng.pair zmq.pair pctemplate.stream; do
  grep -q "^$id " <<<"$list" || fail "--list does not show $id"
done

echo "== ipchost check"
"$ipchost" check --plugin-dir "$plugins" --plugin mytransport,nng,zmq,pctemplate \
  | tee "$work/check.txt"
grep -q "^[1-9][0-9]* passed, 0 failed$" "$work/check.txt" || fail "ipchost check failed"

echo "== short benchmark"
"$ipchost" --plugin-dir "$plugins" --plugin mytransport,nng,zmq --size 64,4K --duration 0.2 \
  --warmup 0.05 --format json --output "$work/result.json"
ok=$(grep -c '"status": "ok"' "$work/result.json")
[ "$ok" -eq 12 ] || fail "expected 12 measured cases, got $ok"
"$ipchost" --plugin-dir "$plugins" --plugin zmq,nng --size 64 --mode latency --duration 0.2 \
  --warmup 0.05
echo "consumer_test: PASS"
