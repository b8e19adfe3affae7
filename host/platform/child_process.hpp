#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/stream_socket.hpp"

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

// A copy of this executable started as a worker, with a connected control socket. The child and
// what it starts can be killed at once (POSIX: its own process group; Windows: a Job object of
// its own), and it dies with the parent (POSIX: PR_SET_PDEATHSIG, SIGTERM so it removes what it
// made; Windows: JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, the job handle closes when ipchost ends).
class child_process {
public:
    // Starts `program args... --control-socket H`, H being the child's end of a connected_pair()
    // (POSIX: descriptor 3; Windows: "stdin", see socket_from_token). Throws std::runtime_error
    // on failure. Its stdout and stderr go through an output_capture labelled `label`, never to
    // ours. `keep`, when given, also receives that output for the result (see output_capture).
    // `start_cpu` >= 0: the child starts confined to that CPU (sched_setaffinity before exec,
    // SetProcessAffinityMask before its first thread runs), so a runtime that sizes itself from
    // the CPUs it may use (Go's GOMAXPROCS, a JVM's processors, Mono's thread pool) sees one, as
    // under taskset; a CPU that cannot be set is left to the child, which reports it.
    // `environment`, when given, is the child's whole environment (NAME=VALUE entries) instead
    // of this process's (a kit's worker: kit/kit_environment.hpp).
    child_process(const std::string &program, const std::vector<std::string> &args,
                  const std::string &label = "worker", captured_output *keep = nullptr,
                  int start_cpu = -1, const std::vector<std::string> *environment = nullptr);
    ~child_process();
    child_process(const child_process &) = delete;
    child_process &operator=(const child_process &) = delete;

    socket_handle control_socket() const { return control_; }
    long pid() const { return pid_; }

    // Ends the child and everything it started, at once (SIGKILL / TerminateJobObject).
    void kill();
    // Waits up to timeout_ms (-1 forever) for the child to end; true when it has.
    bool wait(int timeout_ms);
    bool finished() const { return finished_; }
    const exit_status &status() const { return status_; }

private:
    std::unique_ptr<output_capture> output_;
    long pid_ = -1;
    socket_handle control_ = no_socket;
#ifdef _WIN32
    std::intptr_t job_ = 0, process_ = 0;  // the Job object and the process
#endif
    bool finished_ = false;
    exit_status status_;
};

// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so what a
// plugin leaves running (a fork in its entry point, a daemon it starts) comes back to ipchost.
// Windows: nothing to do (a worker's Job object holds all it starts).
void become_subreaper();
// Kills (SIGKILL) every child of this process not in `known` and returns "pid (name)" for
// each: processes a plugin left behind. Windows: a Job object ends those with their worker.
std::vector<std::string> kill_escaped_children(const std::vector<long> &known = {});

// The path of the running executable (for re-running it as a worker).
std::string self_executable_path();

}  // namespace ipcbench::platform
