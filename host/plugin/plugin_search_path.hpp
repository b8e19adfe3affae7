#pragma once

#include <filesystem>
#include <vector>

namespace ipcbench::plugin {

// The folder next to the executable: <dir of ipchost>/../lib/ipcbench/plugins. The same relative
// layout holds in the build tree and after `cmake --install`.
std::filesystem::path default_plugin_folder();

// The folders an environment variable lists (':'-separated; ';' on Windows), empty ones skipped.
std::vector<std::filesystem::path> folders_from_environment(const char *name);

// Search order: every --plugin-dir as given, then IPCBENCH_PLUGIN_PATH (':'-separated; ';' on
// Windows), then the default folder (unless `include_default` is false).
std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path> &plugin_dirs, bool include_default = true);

}  // namespace ipcbench::plugin
