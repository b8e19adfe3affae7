#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ipcbench::platform {

// What /proc/PID/stat says of a process (nullopt when there is no such process).
struct process_status {
    std::string name;        // its command name (may hold spaces and parentheses)
    char state = '?';        // 'R', 'S', ... 'Z' for a zombie
    long parent = 0;         // its parent's pid
    std::string start_time;  // clock ticks after boot: with the pid, unique over time
};
std::optional<process_status> read_process_status(long pid);

// A running process's identity that survives pid reuse: "<pid>:<start time>"; "" when no such
// process runs. A recorded identity that no longer matches means that process is gone.
std::string process_identity(long pid);
std::string self_identity();
// This process's id.
long current_process_id();
// How many descriptors (POSIX: /proc/self/fd) or handles (Windows: GetProcessHandleCount) this
// process holds open: what a leak check compares before and after.
std::size_t open_handle_count();

// The folder private run directories go in: $TMPDIR, else /tmp.
std::filesystem::path temp_root();

// Folders `temp_root()/<prefix>*` owned by this user with mode 0700 (the only ones this user's
// ipchost could have made; anything else is never touched).
std::vector<std::filesystem::path> own_private_folders(const std::string &prefix);

}  // namespace ipcbench::platform
