#pragma once

#include <filesystem>
#include <string>

namespace ipcbench::platform {

// What changes whenever a file's content may have changed: device, inode, size, modification
// and status-change times ("" when it cannot be read). ctime cannot be set back by a user, so
// a replaced or rewritten file never keeps its identity.
std::string file_identity(const std::filesystem::path &file);

}  // namespace ipcbench::platform
