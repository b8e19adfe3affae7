#include "platform/isolated_calls.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "platform/child_process.hpp"

namespace ipcbench::platform {
namespace {

// The child reports "about to start item i" and "finished item i" as 8-byte records.
struct record {
    std::uint32_t index;
    std::uint32_t finished;
};

exit_status wait_for(pid_t pid) {
    exit_status status;
    int raw = 0;
    while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(raw)) {
        status.exited = true;
        status.code = WEXITSTATUS(raw);
    } else if (WIFSIGNALED(raw)) {
        status.signaled = true;
        status.signal = WTERMSIG(raw);
    }
    return status;
}

}  // namespace

std::vector<std::string> run_isolated(std::size_t count,
                                      const std::function<void(std::size_t)> &work,
                                      int timeout_ms) {
    std::vector<std::string> failures(count);
    std::size_t next = 0;
    while (next < count) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) break;  // cannot isolate: the caller loads directly
        pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]);
            close(fds[1]);
            break;
        }
        if (pid == 0) {
            close(fds[0]);
            for (std::size_t i = next; i < count; ++i) {
                record start{static_cast<std::uint32_t>(i), 0};
                if (write(fds[1], &start, sizeof start) != sizeof start) _exit(2);
                work(i);
                record end{static_cast<std::uint32_t>(i), 1};
                if (write(fds[1], &end, sizeof end) != sizeof end) _exit(2);
            }
            _exit(0);  // no destructors, no atexit handlers of the parent's state
        }
        close(fds[1]);
        std::size_t current = next;
        bool in_item = false, hung = false;
        for (;;) {
            pollfd pfd{fds[0], POLLIN, 0};
            int rc = poll(&pfd, 1, timeout_ms);
            if (rc == 0) {
                hung = true;
                kill(pid, SIGKILL);
                break;
            }
            if (rc < 0) {
                if (errno == EINTR) continue;
                break;
            }
            record r{};
            ssize_t n = read(fds[0], &r, sizeof r);
            if (n != static_cast<ssize_t>(sizeof r)) break;  // the child ended
            current = r.index;
            in_item = r.finished == 0;
        }
        close(fds[0]);
        exit_status status = wait_for(pid);
        if (!in_item) break;  // every item finished (or the child failed between items)
        failures[current] = hung ? "hung for more than " + std::to_string(timeout_ms / 1000) + " s"
                                 : status.describe();
        next = current + 1;
    }
    return failures;
}

}  // namespace ipcbench::platform
