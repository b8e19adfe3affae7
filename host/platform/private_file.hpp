#pragma once

#include <filesystem>
#include <string>

namespace ipcbench::platform {

// Writes `content` to `path` as a file only the current user can read (0600). An existing file
// is replaced only when it is a regular file of this user (never followed through a symlink).
// Throws std::runtime_error naming the path and the reason.
void write_private_file(const std::filesystem::path &path, const std::string &content);

// Creates `path` with `content` (mode 0644 on POSIX, less the umask): it must not exist yet,
// and a link planted in its place is never followed (O_CREAT | O_EXCL | O_NOFOLLOW; Windows
// CREATE_NEW). Throws std::runtime_error naming the path and the reason.
void create_new_file(const std::filesystem::path &path, const std::string &content);

// Reads a secret (a token file), at most max_bytes of it, refusing a file that others could
// read or replace, as ssh refuses a private key that is too open: POSIX, a regular file owned
// by this user with no permission for group or others (chmod 600); Windows, a regular file,
// not a link (its access list is the user's to set). Throws std::runtime_error naming the file,
// what is wrong and the fix.
std::string read_private_file(const std::filesystem::path &path, std::size_t max_bytes);

// A per-user folder for small state files (0700): $XDG_RUNTIME_DIR/ipcbench, else
// ~/.cache/ipcbench, else a folder under the temp dir named after the user id. Created if missing.
std::filesystem::path user_state_dir();

// True when this process runs with root's effective user id.
bool running_as_root();

}  // namespace ipcbench::platform
