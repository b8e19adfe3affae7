// `ipchost new-plugin NAME [--lang c|cpp] [--dir DIR]`: a plugin project from the SDK template.
#include <fmt/format.h>

#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/usage_error.hpp"

namespace ipcbench::cli {

int new_plugin_command(const command_line &cmd) {
    const auto &request = cmd.new_plugin;
    std::vector<std::filesystem::path> written;
    try {
        written = scaffold::write_plugin_project(request);
    } catch (const std::invalid_argument &e) {
        throw usage_error(e.what());
    }
    const auto dir = request.dir.empty() ? std::filesystem::path(request.name) : request.dir;
    fmt::print("Created {} ({} plugin '{}', transport {}.{}):\n", dir.string(),
               request.lang == "cpp" ? "C++" : "C", request.name, request.name,
               request.lang == "cpp" ? "seqpacket" : "stream");
    for (const auto &f : written) fmt::print("  {}\n", f.string());
    const auto prefix = scaffold::sdk_prefix();
    fmt::print(
        "\nNext:\n  cd {}\n  cmake -S . -B build -DCMAKE_PREFIX_PATH={}\n  cmake --build build\n"
        "  ipchost check --plugin-dir build/ipcbench-plugins --plugin {}\n",
        dir.string(), prefix.empty() ? "/where/ipcbench/is/installed" : prefix.string(),
        request.name);
    return 0;
}

}  // namespace ipcbench::cli
