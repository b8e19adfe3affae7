#include "platform/isolated_calls.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/os_calls.hpp"

namespace ipcbench::platform {
namespace {

// The child reports "starting item i" and "finished item i, here is its output".
struct record_header {
    std::uint32_t index;
    std::uint32_t finished;
    std::uint32_t length;  // bytes of output after a "finished" header
};
constexpr std::size_t max_output = 1 << 20;

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

bool write_all(int fd, const void *data, std::size_t size) {
    const char *p = static_cast<const char *>(data);
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

[[noreturn]] void child_main(int fd, pid_t parent, std::size_t first, std::size_t end,
                             const std::function<std::string(std::size_t)> &work) {
    setsid();  // its own session and process group: kill(0, ...) reaches only this child
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null_fd = open("/dev/null", O_RDWR);
    for (int std_fd = 0; std_fd < 3; ++std_fd) dup2(null_fd, std_fd);
    for (std::size_t i = first; i < end; ++i) {
        record_header start{static_cast<std::uint32_t>(i), 0, 0};
        if (!write_all(fd, &start, sizeof start)) _exit(2);
        std::string output = work(i);
        output.resize(std::min(output.size(), max_output));
        record_header done{static_cast<std::uint32_t>(i), 1,
                           static_cast<std::uint32_t>(output.size())};
        if (!write_all(fd, &done, sizeof done) || !write_all(fd, output.data(), output.size()))
            _exit(2);
    }
    _exit(0);  // no destructors, no atexit handlers of the parent's state
}

// One child's share of the items, [next, end).
struct share {
    std::size_t next = 0, end = 0;
    pid_t pid = -1;
    int fd = -1;
    std::string buffer;
    bool in_item = false;
    std::size_t current = 0;
    std::int64_t deadline = 0;
};

class isolated_runner {
public:
    isolated_runner(std::size_t count, const std::function<std::string(std::size_t)> &work,
                    int timeout_ms)
        : work_(work), timeout_ms_(timeout_ms), results_(count) {}

    std::vector<isolated_result> run(int parallel) {
        const std::size_t count = results_.size();
        const std::size_t n = std::min<std::size_t>(std::max(parallel, 1), count);
        for (std::size_t k = 0; k < n; ++k) {
            share s;
            s.next = count * k / n;
            s.end = count * (k + 1) / n;
            shares_.push_back(s);
        }
        for (auto &s : shares_) start(s);
        while (
            std::any_of(shares_.begin(), shares_.end(), [](const share &s) { return s.fd >= 0; }))
            step();
        return std::move(results_);
    }

private:
    void start(share &s) {
        if (s.next >= s.end) return;
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) return fail_rest(s, "cannot create a pipe");
        const pid_t parent = getpid();
        const pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]);
            close(fds[1]);
            return fail_rest(s, "cannot fork");
        }
        if (pid == 0) {
            close(fds[0]);
            child_main(fds[1], parent, s.next, s.end, work_);
        }
        close(fds[1]);
        s.pid = pid;
        s.fd = fds[0];
        s.in_item = false;
        s.buffer.clear();
        s.deadline = now_ns() + std::int64_t{timeout_ms_} * 1'000'000;
    }

    void fail_rest(share &s, const std::string &why) {
        for (std::size_t i = s.next; i < s.end; ++i) results_[i].failure = why;
        s.next = s.end;
    }

    void step() {
        std::vector<pollfd> fds;
        std::int64_t first_deadline = INT64_MAX;
        for (const auto &s : shares_)
            if (s.fd >= 0) {
                fds.push_back({s.fd, POLLIN, 0});
                first_deadline = std::min(first_deadline, s.deadline);
            }
        const std::int64_t wait_ns = std::max<std::int64_t>(first_deadline - now_ns(), 0);
        const int rc = IPCBENCH_OS_CALL(poll)(fds.data(), fds.size(),
                                              static_cast<int>(wait_ns / 1'000'000) + 1);
        if (rc < 0 && errno != EINTR)  // no way left to hear from them: not a loop that spins
            return abandon_all(std::string("cannot wait for the isolated processes (poll: ") +
                               std::strerror(errno) + ")");
        for (auto &s : shares_) {
            if (s.fd < 0) continue;
            const auto it =
                std::find_if(fds.begin(), fds.end(), [&](const pollfd &p) { return p.fd == s.fd; });
            if (it != fds.end() && it->revents != 0) read_from(s);
            if (s.fd >= 0 && now_ns() > s.deadline) end_child(s, true);
        }
    }

    void read_from(share &s) {
        char buf[65536];
        const ssize_t n = IPCBENCH_OS_CALL(read)(s.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) return;
        if (n <= 0) return end_child(s, false);
        s.buffer.append(buf, static_cast<std::size_t>(n));
        for (;;) {
            record_header h{};
            if (s.buffer.size() < sizeof h) break;
            std::memcpy(&h, s.buffer.data(), sizeof h);
            if (h.index < s.next || h.index >= s.end || h.length > max_output)
                return end_child(s, false);  // not what the child was given: treat as died
            if (h.finished && s.buffer.size() < sizeof h + h.length) break;
            if (h.finished) results_[h.index].output = s.buffer.substr(sizeof h, h.length);
            s.buffer.erase(0, sizeof h + (h.finished ? h.length : 0));
            s.current = h.index;
            s.in_item = h.finished == 0;
            if (h.finished) s.next = h.index + 1;
            s.deadline = now_ns() + std::int64_t{timeout_ms_} * 1'000'000;
        }
        // Its whole share reported: done, whoever else still holds the pipe (a process the
        // plugin forked inherits it, and would keep EOF away).
        if (!s.in_item && s.next >= s.end) end_child(s, false);
    }

    // Every child killed and reaped, and each item not finished marked with `why`.
    void abandon_all(const std::string &why) {
        for (auto &s : shares_) {
            if (s.fd < 0) continue;
            kill(-s.pid, SIGKILL);
            close(s.fd);
            s.fd = -1;
            wait_for(s.pid);
            fail_rest(s, why);
        }
    }

    // The child ended (or hangs and is killed): its current item failed; the rest go on.
    void end_child(share &s, bool hung) {
        if (hung) kill(-s.pid, SIGKILL);  // the whole group, whatever the item started
        close(s.fd);
        s.fd = -1;
        const exit_status status = wait_for(s.pid);
        if (hung && !s.in_item && s.next < s.end) {
            // Stalled between items: the next one never started.
            s.in_item = true;
            s.current = s.next;
        }
        if (s.in_item) {
            results_[s.current].failure =
                hung ? "hung for more than " + std::to_string(timeout_ms_ / 1000) + " s"
                     : status.describe();
            s.next = s.current + 1;
            return start(s);
        }
        if (s.next < s.end)
            fail_rest(s, "the isolated process ended early (" + status.describe() + ")");
    }

    const std::function<std::string(std::size_t)> &work_;
    int timeout_ms_;
    std::vector<isolated_result> results_;
    std::vector<share> shares_;
};

}  // namespace

std::vector<isolated_result> run_isolated(std::size_t count,
                                          const std::function<std::string(std::size_t)> &work,
                                          int timeout_ms, int parallel) {
    if (count == 0) return {};
    return isolated_runner(count, work, timeout_ms).run(parallel);
}

}  // namespace ipcbench::platform

namespace ipcbench::platform {

std::vector<isolated_result> run_isolated_task(const char *task,
                                               const std::vector<std::string> &arguments,
                                               int timeout_ms, int parallel) {
    const isolated_work work = find_isolated_task(task);
    if (work == nullptr)
        return std::vector<isolated_result>(arguments.size(),
                                            {std::string("no isolated task '") + task + "'", ""});
    return run_isolated(
        arguments.size(), [&](std::size_t i) { return work(arguments[i]); }, timeout_ms, parallel);
}

int serve_isolated_task(int, char **) {
    return 2;  // forked children run the work directly: nothing re-runs ipchost for it
}

}  // namespace ipcbench::platform
