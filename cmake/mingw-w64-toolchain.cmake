# Cross-compiles ipcbench for 64-bit Windows with Debian's mingw-w64 (posix thread model, so
# std::thread works):
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-toolchain.cmake \
#         -DIPCBENCH_WINDOWS_DEPS=<folder made by scripts/windows/build-deps.sh>
# Executables and DLLs link libgcc, libstdc++ and winpthread statically, so they run without extra DLLs
# (without it an .exe exits with code 53 under wine, printing nothing).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${_mingw}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages (an installed ipcbench SDK) may live anywhere: CMAKE_PREFIX_PATH names them.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
# Windows 10 APIs, no min/max macros, the lean windows.h.
add_compile_definitions(_WIN32_WINNT=0x0A00 WINVER=0x0A00 WIN32_LEAN_AND_MEAN NOMINMAX)
# How tests run the .exe files: under wine (scripts/windows/test.sh sets WINEPREFIX).
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
