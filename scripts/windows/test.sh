#!/usr/bin/env bash
# The Windows stage of scripts/test.sh: cross-builds ipchost.exe, the Windows plugins and tests
# with mingw-w64 (-Werror), then runs them under wine (tests/windows). Usage: test.sh [BUILD_DIR]
# Under wine means: the code paths run (process start, Job objects, named pipes, Winsock), but no
# figure it prints is a Windows figure. So the stage builds at -O1 (Release otherwise: NDEBUG):
# optimisation would buy no figure, and -O1 compiles the tree in 167 s against 260 s at -O2
# (2 cores); the .exe users run comes from a Release build of their own.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build-windows}"
deps="${IPCBENCH_WINDOWS_DEPS:-$root/build-win-deps}"

"$root/scripts/install-deps.sh" --windows
"$root/scripts/windows/build-deps.sh" "$deps"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64-toolchain.cmake" \
  -DIPCBENCH_WINDOWS_DEPS="$deps" -DIPCBENCH_BUILD_TESTS=ON -DIPCBENCH_WERROR=ON \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" ${IPCBENCH_GO_CACHE:+-DIPCBENCH_GO_CACHE="$IPCBENCH_GO_CACHE"} >/dev/null
cmake --build "$build" -j"$(nproc)"

export WINEPREFIX="$build/wine-prefix" WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "windows: creating the wine prefix $WINEPREFIX"
  wine wineboot -i </dev/null >"$build/wineboot.log" 2>&1 || true
fi
rc=0
(cd "$build" && ctest --output-on-failure -j"$(nproc)" --timeout 300) || rc=$?
wineserver -k 2>/dev/null || true
exit "$rc"
