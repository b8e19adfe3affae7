# Sourced by the reproduce scripts: builds ipchost (Release) if needed and sets IPCHOST.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
IPCHOST="${IPCHOST:-$root/build/bin/ipchost}"
if [ ! -x "$IPCHOST" ]; then
  "$root/scripts/install-deps.sh" >&2
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DIPCBENCH_BUILD_TESTS=OFF >/dev/null
  cmake --build "$root/build" -j"$(nproc)" >&2
fi
say() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; }
run() { say "$@"; "${@:2}"; }
