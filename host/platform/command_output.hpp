#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/child_process.hpp"

namespace ipcbench::platform {

// What a short command printed (stdout and stderr together) and how it ended.
struct command_output {
    std::string text;  // at most max_bytes, the rest dropped
    exit_status status;
    bool timed_out = false;  // killed at the deadline
    std::string failure;     // it could not be started at all ("" when it ran)
};

// Runs argv (argv[0] an absolute path, no shell) with no input, waits at most timeout_ms, and
// kills it (and what it started) at the deadline. For a kit's runtime-version command: it runs
// a foreign program, so nothing it does can hang or outlive the caller.
//
// With `stop` (a long run of another ipchost: `ipchost ab`'s rounds), it is asked every 100 ms;
// once it says so the child is asked to end (POSIX: SIGTERM to its process group, so ipchost
// removes what it made and exits 130; SIGKILL 10 s later), and the child gets SIGTERM, not
// SIGKILL, when this process dies. Windows: its Job object is ended at once.
//
// `environment`, when given, is the child's whole environment (NAME=VALUE entries).
command_output run_for_output(const std::vector<std::string> &argv, int timeout_ms,
                              std::size_t max_bytes = 4096, const std::function<bool()> &stop = {},
                              const std::vector<std::string> *environment = nullptr);

// The absolute path of `program`: itself when it holds a path separator, else the first
// executable of that name on PATH; "" when there is none.
std::string find_program(const std::string &program);

}  // namespace ipcbench::platform
