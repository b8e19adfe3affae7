#pragma once

#include <filesystem>
#include <string>

namespace ipcbench::plugin {

// Why a file in a plugin folder was not loaded, or a transport in it was dropped. Each code is
// stable, so users can search for it; the text names what was found and the fix.
struct plugin_rejection {
    std::filesystem::path file;
    std::string code;    // "IPCB-LOAD-004"
    std::string reason;  // "plugin ABI 2.0, ipchost supports 1.x"
    std::string fix;     // "rebuild the plugin against ipcbench SDK 1.x"

    std::string describe() const;  // "<file>: rejected [code]: reason (fix)"
};

}  // namespace ipcbench::plugin
