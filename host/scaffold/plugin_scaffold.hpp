#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ipcbench::scaffold {

// `ipchost new-plugin NAME [--lang c|cpp] [--dir DIR]`: a ready plugin project made from the
// installed SDK template (share/ipcbench/templates/<lang>), with "mytransport" renamed to NAME
// and a README that says the next commands.
struct plugin_request {
    std::string name;  // [a-z0-9_]+: the plugin name and the prefix of its transport ids
    std::string lang = "c";
    std::filesystem::path dir;  // empty: ./NAME
};

// The folder the templates are read from: <ipchost dir>/../share/ipcbench/templates.
std::filesystem::path template_root();

// The installed prefix a new project builds against (what CMAKE_PREFIX_PATH should name), or
// empty when this ipchost does not sit in one with the SDK's CMake package (a build tree).
std::filesystem::path sdk_prefix();

// Writes the project; returns the files written. Throws std::invalid_argument for a bad name,
// language or folder (with the fix in the message), std::runtime_error when writing fails.
std::vector<std::filesystem::path> write_plugin_project(const plugin_request &request);

}  // namespace ipcbench::scaffold
