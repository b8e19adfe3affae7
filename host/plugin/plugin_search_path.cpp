#include "plugin/plugin_search_path.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <sstream>
#include <string>

namespace ipcbench::plugin {

std::filesystem::path default_plugin_folder() {
    std::filesystem::path exe = boost::dll::program_location().string();
    return (exe.parent_path() / IPCBENCH_PLUGIN_DIR_FROM_BIN).lexically_normal();
}

std::vector<std::filesystem::path> folders_from_environment(const char *name) {
    std::vector<std::filesystem::path> folders;
    const char *env = std::getenv(name);
    if (env == nullptr) return folders;
#if defined(_WIN32)
    const char separator = ';';
#else
    const char separator = ':';
#endif
    std::stringstream list(env);
    std::string entry;
    while (std::getline(list, entry, separator))
        if (!entry.empty()) folders.emplace_back(entry);
    return folders;
}

std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path> &plugin_dirs, bool include_default) {
    std::vector<std::filesystem::path> folders(plugin_dirs.begin(), plugin_dirs.end());
    for (auto &f : folders_from_environment("IPCBENCH_PLUGIN_PATH"))
        folders.push_back(std::move(f));
    if (include_default) folders.push_back(default_plugin_folder());
    return folders;
}

}  // namespace ipcbench::plugin
