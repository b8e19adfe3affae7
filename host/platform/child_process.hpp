#pragma once

#include <sys/types.h>
#include <memory>
#include <string>
#include <vector>

namespace ipcbench::platform {

class output_capture;
struct captured_output;

// How a child process ended.
struct exit_status {
    bool exited = false;    // returned from main / called exit
    int code = 0;           // exit code when exited
    bool signaled = false;  // killed by a signal
    int signal = 0;
    std::string describe() const;  // "exit code 3", "signal 11 (SIGSEGV)"
};

// A copy of this executable started as a worker, with a connected control socket. The child runs
// in its own process group, so a watchdog can kill it and anything it started, and dies with the
// parent.
class child_process {
public:
    // Starts `program args...`; the child gets its end of a socketpair as descriptor
    // `child_fd_number` (args should tell it so). Throws std::runtime_error on failure.
    // Its stdout and stderr go through an output_capture labelled `label`, never to ours.
    // `keep`, when given, also receives that output for the result (see output_capture).
    child_process(const std::string &program, const std::vector<std::string> &args,
                  int child_fd_number, const std::string &label = "worker",
                  captured_output *keep = nullptr);
    ~child_process();
    child_process(const child_process &) = delete;
    child_process &operator=(const child_process &) = delete;

    int control_fd() const { return control_fd_; }
    pid_t pid() const { return pid_; }

    void kill_group(int signal);
    // Waits up to timeout_ms (-1 forever) for the child to end; true when it has.
    bool wait(int timeout_ms);
    bool finished() const { return finished_; }
    const exit_status &status() const { return status_; }

private:
    std::unique_ptr<output_capture> output_;
    pid_t pid_ = -1;
    int control_fd_ = -1;
    bool finished_ = false;
    exit_status status_;
};

// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so what a
// plugin leaves running (a fork in its entry point, a daemon it starts) comes back to ipchost.
void become_subreaper();
// Kills (SIGKILL) every child of this process not in `known` and returns "pid (name)" for
// each: processes a plugin left behind.
std::vector<std::string> kill_escaped_children(const std::vector<pid_t> &known = {});

// The path of the running executable (for re-running it as a worker).
std::string self_executable_path();

}  // namespace ipcbench::platform
