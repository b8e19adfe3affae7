# ipcbench_add_plugin(<name> <sources>...)
#
# Builds an ipcbench transport plugin: a MODULE library ipcb-<name>.so that
#  - links ipcbench::sdk, or ipcbench::sdk_cxx (C++17) when the project enables C++,
#  - exports only ipcb_plugin_entry (hidden visibility plus a version script),
#  - links with -z defs, so a missing symbol fails the build instead of the load,
#  - lands in IPCBENCH_PLUGIN_OUTPUT_DIR (default <build>/ipcbench-plugins: pass that folder to
#    `ipchost --plugin-dir`, or put it in IPCBENCH_PLUGIN_PATH),
#  - installs into <prefix>/lib/ipcbench/plugins, the folder an ipchost installed in the same
#    prefix searches (IPCBENCH_PLUGIN_DIR names the one of the ipchost this package came with).
set(_ipcbench_plugin_dir "${CMAKE_CURRENT_LIST_DIR}")

function(ipcbench_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "ipcbench_add_plugin(${name}): no source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  # A C++ project gets C++17 for ipcbench/transport.hpp (its compiler may default to less).
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CXX" IN_LIST languages)
    target_link_libraries(${name} PRIVATE ipcbench::sdk_cxx)
  else()
    target_link_libraries(${name} PRIVATE ipcbench::sdk)
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "ipcb-${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(NOT WIN32 AND NOT APPLE)
    target_link_options(${name} PRIVATE
      "LINKER:--version-script=${_ipcbench_plugin_dir}/ipcbench_plugin.version"
      "LINKER:-z,defs")
  endif()
  if(DEFINED IPCBENCH_PLUGIN_OUTPUT_DIR)
    set(out "${IPCBENCH_PLUGIN_OUTPUT_DIR}")
  else()
    set(out "${CMAKE_BINARY_DIR}/ipcbench-plugins")
  endif()
  set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${out}")
  if(DEFINED IPCBENCH_PLUGIN_INSTALL_DIR)
    set(dest "${IPCBENCH_PLUGIN_INSTALL_DIR}")
  else()
    set(dest "lib/ipcbench/plugins")
  endif()
  install(TARGETS ${name} LIBRARY DESTINATION "${dest}")
endfunction()
