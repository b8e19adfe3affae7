#pragma once

#include <filesystem>
#include <string>

namespace ipcbench::platform {

// Why code in `path` (a plugin file or its folder) should not be loaded: "" when it is fine, else
// the reason ("writable by every user (mode 0777)", "owned by uid 1000 while ipchost runs as
// root"). A loader of code refuses what other users could have replaced.
std::string untrusted_reason(const std::filesystem::path &path);

}  // namespace ipcbench::platform
