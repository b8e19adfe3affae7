#include "platform/output_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "platform/os_calls.hpp"

namespace ipcbench::platform {

output_capture::output_capture(std::string label, captured_output *keep)
    : label_(std::move(label)), keep_(keep) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe for a worker's output");
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    thread_ = std::thread([this] { forward(); });
}

output_capture::~output_capture() {
    close_child_fd();
    stop_.store(true);
    thread_.join();
    close(static_cast<int>(read_fd_));
    if (dropped_ > 0)
        fmt::print(stderr, "[{}] ... {} more bytes of output dropped\n", label_, dropped_);
}

void output_capture::close_child_fd() {
    if (write_fd_ >= 0) close(static_cast<int>(write_fd_));
    write_fd_ = -1;
}

void output_capture::forward() {
    char buf[16384];
    for (;;) {
        pollfd p{static_cast<int>(read_fd_), POLLIN, 0};
        const int rc = IPCBENCH_OS_CALL(poll)(&p, 1, 100);
        if (rc < 0 && errno != EINTR) break;
        ssize_t n = 0;
        if (rc > 0) n = IPCBENCH_OS_CALL(read)(static_cast<int>(read_fd_), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;  // a signal is not the end of the output
        if (n > 0) take(buf, static_cast<std::size_t>(n));
        const bool done = (rc > 0 && n <= 0) || (rc == 0 && stop_.load());
        emit_lines(done);
        if (done) break;
    }
}

}  // namespace ipcbench::platform
