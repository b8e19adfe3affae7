# The host's libraries for the mingw-w64 build, as the imported targets find_package gives on
# Linux: Boost 1.81 headers and Boost.Program_options (built by scripts/windows/build-deps.sh
# from Debian's source package), spdlog and fmt header-only, nlohmann-json and Catch2 as headers.
if(NOT IPCBENCH_WINDOWS_DEPS OR NOT EXISTS "${IPCBENCH_WINDOWS_DEPS}/lib/libboost_program_options.a")
  message(FATAL_ERROR "IPCBENCH_WINDOWS_DEPS must name the folder scripts/windows/build-deps.sh "
                      "made (it holds include/ and lib/libboost_program_options.a)")
endif()
set(_deps_include "${IPCBENCH_WINDOWS_DEPS}/include")

add_library(Boost::headers INTERFACE IMPORTED GLOBAL)
target_include_directories(Boost::headers SYSTEM INTERFACE "${_deps_include}")
add_library(Boost::program_options STATIC IMPORTED GLOBAL)
set_target_properties(Boost::program_options PROPERTIES
  IMPORTED_LOCATION "${IPCBENCH_WINDOWS_DEPS}/lib/libboost_program_options.a"
  INTERFACE_LINK_LIBRARIES Boost::headers)
add_library(fmt::fmt INTERFACE IMPORTED GLOBAL)
target_include_directories(fmt::fmt SYSTEM INTERFACE "${_deps_include}")
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(spdlog::spdlog INTERFACE IMPORTED GLOBAL)
target_compile_definitions(spdlog::spdlog INTERFACE SPDLOG_HEADER_ONLY SPDLOG_FMT_EXTERNAL)
target_link_libraries(spdlog::spdlog INTERFACE fmt::fmt)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE "${_deps_include}")
add_library(Catch2::Catch2 INTERFACE IMPORTED GLOBAL)
target_include_directories(Catch2::Catch2 SYSTEM INTERFACE "${_deps_include}")
find_package(Threads REQUIRED)
