#pragma once

#include <filesystem>
#include <string>

namespace ipcbench::platform {

// Writes `content` to `path` as a file only the current user can read (0600). An existing file
// is replaced only when it is a regular file of this user (never followed through a symlink).
// Throws std::runtime_error naming the path and the reason.
void write_private_file(const std::filesystem::path &path, const std::string &content);

// A per-user folder for small state files (0700): $XDG_RUNTIME_DIR/ipcbench, else
// ~/.cache/ipcbench, else a folder under the temp dir named after the user id. Created if missing.
std::filesystem::path user_state_dir();

// True when this process runs with root's effective user id.
bool running_as_root();

}  // namespace ipcbench::platform
