#include "platform/command_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "platform/monotonic_clock.hpp"
#include "platform/os_calls.hpp"

namespace ipcbench::platform {
namespace {

constexpr std::int64_t grace_ns = 10'000'000'000;  // after SIGTERM, before SIGKILL

// Reads what the child prints until it closes its end or the deadline passes. When `stop` says
// so, the child's group gets SIGTERM and the deadline moves to grace_ns from then.
bool read_until(int fd, std::int64_t deadline, std::size_t max_bytes, std::string &text,
                pid_t group, const std::function<bool()> &stop) {
    char buf[1024];
    bool stopping = false;
    for (;;) {
        if (stop && !stopping && stop()) {
            stopping = true;
            kill(-group, SIGTERM);
            deadline = std::min(deadline, now_ns() + grace_ns);
        }
        const std::int64_t left_ms = (deadline - now_ns()) / 1'000'000;
        if (left_ms <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        const int slice = stop ? 100 : static_cast<int>(std::min<std::int64_t>(left_ms, INT32_MAX));
        const int r = IPCBENCH_OS_CALL(poll)(&p, 1, std::min(slice, static_cast<int>(left_ms)));
        if (r < 0 && errno == EINTR) continue;
        if (r == 0 && stop && now_ns() < deadline) continue;
        if (r <= 0) return r == 0 ? false : true;
        const ssize_t n = IPCBENCH_OS_CALL(read)(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        if (text.size() < max_bytes)
            text.append(
                buf, std::min<std::size_t>(static_cast<std::size_t>(n), max_bytes - text.size()));
    }
}

exit_status status_of(int raw) {
    exit_status s;
    if (WIFEXITED(raw)) {
        s.exited = true;
        s.code = WEXITSTATUS(raw);
    } else if (WIFSIGNALED(raw)) {
        s.signaled = true;
        s.signal = WTERMSIG(raw);
    }
    return s;
}

}  // namespace

command_output run_for_output(const std::vector<std::string> &argv, int timeout_ms,
                              std::size_t max_bytes, const std::function<bool()> &stop,
                              const std::vector<std::string> *environment) {
    command_output out;
    if (argv.empty() || argv[0].empty() || argv[0][0] != '/') {
        out.failure = "the command must start with an absolute program path";
        return out;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        out.failure = std::string("pipe: ") + std::strerror(errno);
        return out;
    }
    std::vector<std::string> storage(argv);
    std::vector<char *> args;
    args.reserve(storage.size() + 1);
    for (auto &a : storage) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<std::string> env_storage;
    std::vector<char *> envp;
    if (environment != nullptr) env_storage = *environment;
    envp.reserve(env_storage.size() + 1);
    for (auto &entry : env_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        out.failure = std::string("fork: ") + std::strerror(errno);
        close(fds[0]);
        close(fds[1]);
        return out;
    }
    if (pid == 0) {  // only async-signal-safe calls until exec
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, stop ? SIGTERM : SIGKILL);
        if (getppid() != parent) _exit(127);
        const int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
            _exit(127);
        if (environment != nullptr)
            execve(args[0], args.data(), envp.data());
        else
            execv(args[0], args.data());
        _exit(127);
    }
    setpgid(pid, pid);
    close(fds[1]);
    const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    const bool closed = read_until(fds[0], deadline, max_bytes, out.text, pid, stop);
    close(fds[0]);
    int raw = 0;
    if (!closed) {
        out.timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &raw, 0);
    } else {
        // Its output ended; it exits now (or is made to, a second later).
        for (int i = 0; i < 100; ++i) {
            const pid_t r = IPCBENCH_OS_CALL(waitpid)(pid, &raw, WNOHANG);
            if (r == pid || (r < 0 && errno != EINTR)) break;
            usleep(10'000);
            if (i == 99) {
                out.timed_out = true;
                kill(-pid, SIGKILL);
                waitpid(pid, &raw, 0);
            }
        }
    }
    out.status = status_of(raw);
    return out;
}

std::string find_program(const std::string &program) {
    auto executable = [](const std::string &path) {
        struct stat st {};
        return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
               access(path.c_str(), X_OK) == 0;
    };
    if (program.find('/') != std::string::npos) return executable(program) ? program : "";
    const char *path = std::getenv("PATH");
    std::stringstream folders(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        if (folder.empty()) continue;
        std::string candidate = folder + "/" + program;
        if (executable(candidate)) return candidate;
    }
    return "";
}

}  // namespace ipcbench::platform
