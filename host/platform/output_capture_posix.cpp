#include "platform/output_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

#include "text/printable_text.hpp"

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
    std::string pending;
    char buf[16384];
    for (;;) {
        pollfd p{static_cast<int>(read_fd_), POLLIN, 0};
        const int rc = poll(&p, 1, 100);
        if (rc < 0 && errno != EINTR) break;
        ssize_t n = 0;
        if (rc > 0) n = read(static_cast<int>(read_fd_), buf, sizeof buf);
        if (n > 0) {
            const auto bytes = static_cast<std::size_t>(n);
            if (keep_) keep_->bytes += bytes;
            const std::size_t room = max_forwarded - std::min(max_forwarded, forwarded_);
            pending.append(buf, std::min(bytes, room));
            forwarded_ += std::min(bytes, room);
            dropped_ += bytes - std::min(bytes, room);
        }
        const bool done = (rc > 0 && n <= 0) || (rc == 0 && stop_.load());
        for (std::size_t eol;
             (eol = pending.find('\n')) != std::string::npos || (done && !pending.empty());) {
            const std::size_t end = eol == std::string::npos ? pending.size() : eol;
            const std::string line = text::printable(pending.substr(0, end), 4096);
            fmt::print(stderr, "[{}] {}\n", label_, line);
            if (keep_ && keep_->text.size() < captured_output::max_kept)
                keep_->text +=
                    line.substr(0, captured_output::max_kept - keep_->text.size()) + "\n";
            pending.erase(0, end == pending.size() ? end : end + 1);
        }
        if (done) break;
    }
}

}  // namespace ipcbench::platform
