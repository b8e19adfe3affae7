#include "platform/child_process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "platform/monotonic_clock.hpp"
#include "platform/os_calls.hpp"
#include "platform/output_capture.hpp"
#include "platform/process_identity.hpp"

namespace ipcbench::platform {

std::string exit_status::describe() const {
    if (exited) return "exit code " + std::to_string(code);
    if (signaled) {
        const char *name = sigabbrev_np(signal);
        return "signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
    }
    return "still running";
}

std::string self_executable_path() {
    return boost::dll::program_location().string();
}

namespace {
constexpr int child_fd_number = 3;
}  // namespace

child_process::child_process(const std::string &program, const std::vector<std::string> &args,
                             const std::string &label, captured_output *keep, int start_cpu,
                             const std::vector<std::string> *environment)
    : output_(std::make_unique<output_capture>(label, keep)) {
    cpu_set_t start_cpus;
    CPU_ZERO(&start_cpus);
    if (start_cpu >= 0 && start_cpu < CPU_SETSIZE) CPU_SET(start_cpu, &start_cpus);
    const int output_fd = static_cast<int>(output_->child_fd());
    std::array<socket_handle, 2> pair{};
    try {
        pair = connected_pair();
    } catch (const socket_error &e) {
        throw std::runtime_error(std::string("control socket for the worker: ") + e.what());
    }
    const int fds[2] = {static_cast<int>(pair[0]), static_cast<int>(pair[1])};
    std::vector<std::string> argv_storage;
    argv_storage.push_back(program);
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    argv_storage.push_back("--control-socket");
    argv_storage.push_back(std::to_string(child_fd_number));
    std::vector<char *> argv;
    argv.reserve(argv_storage.size() + 1);
    for (auto &arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_storage;
    std::vector<char *> envp;
    if (environment != nullptr) env_storage = *environment;
    envp.reserve(env_storage.size() + 1);
    for (auto &entry : env_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);

    pid_t parent = getpid();
    pid_t pid = IPCBENCH_OS_CALL(fork)();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error(std::string("fork for the worker: ") + std::strerror(e));
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec.
        setpgid(0, 0);
        // SIGTERM, not SIGKILL: a worker removes the IPC objects it made (platform/last_words)
        // before it dies with its parent.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        signal(SIGINT, SIG_IGN);  // the parent decides what an interrupt means
        if (CPU_COUNT(&start_cpus) > 0) sched_setaffinity(0, sizeof start_cpus, &start_cpus);
        if (dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0) _exit(127);
        if (fds[1] == child_fd_number) {
            fcntl(fds[1], F_SETFD, 0);
        } else if (dup2(fds[1], child_fd_number) < 0) {
            _exit(127);
        }
        if (environment != nullptr)
            execve(program.c_str(), argv.data(), envp.data());
        else
            execv(program.c_str(), argv.data());
        _exit(127);
    }
    setpgid(pid, pid);  // also from the parent, so kill_group works whoever runs first
    close(fds[1]);
    output_->close_child_fd();
    pid_ = pid;
    control_ = fds[0];
}

child_process::~child_process() {
    if (!finished_) {
        kill();
        wait(-1);
    }
    close_socket(control_);
}

void child_process::kill() {
    if (pid_ > 0 && !finished_) {
        ::kill(static_cast<pid_t>(-pid_), SIGKILL);
        ::kill(static_cast<pid_t>(pid_), SIGKILL);
    }
}

bool child_process::wait(int timeout_ms) {
    if (finished_) return true;
    std::int64_t deadline = timeout_ms < 0 ? -1 : now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    for (;;) {
        int status = 0;
        pid_t r = IPCBENCH_OS_CALL(waitpid)(static_cast<pid_t>(pid_), &status,
                                            deadline < 0 ? 0 : WNOHANG);
        if (r == pid_) {
            finished_ = true;
            if (WIFEXITED(status)) {
                status_.exited = true;
                status_.code = WEXITSTATUS(status);
            } else if (WIFSIGNALED(status)) {
                status_.signaled = true;
                status_.signal = WTERMSIG(status);
            }
            return true;
        }
        if (r < 0 && errno != EINTR) {
            finished_ = true;  // not our child any more; nothing left to wait for
            return true;
        }
        if (deadline >= 0 && now_ns() >= deadline) return false;
        if (deadline >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

}  // namespace ipcbench::platform

namespace ipcbench::platform {

void become_subreaper() {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

std::vector<std::string> kill_escaped_children(const std::vector<long> &known) {
    std::vector<std::string> killed;
    const long self = getpid();
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const long pid = std::stol(name);
        const auto status = read_process_status(pid);
        if (!status || status->parent != self ||
            std::find(known.begin(), known.end(), pid) != known.end())
            continue;
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        int ignored = 0;
        waitpid(static_cast<pid_t>(pid), &ignored, 0);
        killed.push_back(name + " (" + status->name + ")");
    }
    return killed;
}

}  // namespace ipcbench::platform
