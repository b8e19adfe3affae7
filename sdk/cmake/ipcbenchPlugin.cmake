# ipcbench_add_plugin(<name> <sources>...)
#
# Builds an ipcbench transport plugin: a MODULE library named ipcb-<name>.so that exports only
# ipcb_plugin_entry (hidden visibility plus a version script), links with -z defs so a missing
# symbol fails the build instead of the load, and lands in IPCBENCH_PLUGIN_OUTPUT_DIR when set
# (the folder ipchost searches in a build tree).
set(_ipcbench_plugin_dir "${CMAKE_CURRENT_LIST_DIR}")

function(ipcbench_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE ipcbench::sdk)
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
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${IPCBENCH_PLUGIN_OUTPUT_DIR}")
  endif()
endfunction()
