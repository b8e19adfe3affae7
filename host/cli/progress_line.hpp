#pragma once

#include <fmt/format.h>
#include <cstdint>
#include <cstdio>
#include <string>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::cli {

// Progress on stderr. On a terminal: "[3/24] pipe.fifo throughput 64 B, 12 s elapsed, about 84
// s left", one line refreshed in place while a case runs. Into a pipe or a log (CI, `| tee`,
// nohup): one line as each case finishes, "[3/24] pipe.fifo throughput 64 B: 1234.5 MB/s, 12 s
// elapsed, 21 cases left", so a long run shows it is alive. Neither with -q.
class progress_line {
public:
    progress_line(std::size_t total, bool enabled, bool terminal)
        : total_(total), enabled_(enabled), terminal_(terminal), start_(platform::now_ns()) {}
    void show(std::size_t index, const std::string &what) {
        if (!enabled_ || !terminal_) return;
        const double elapsed = (platform::now_ns() - start_) / 1e9;
        std::string left = index > 1 ? fmt::format(", about {:.0f} s left",
                                                   elapsed / (index - 1) * (total_ - index + 1))
                                     : "";
        fmt::print(stderr, "\r\033[K[{}/{}] {}, {:.0f} s elapsed{}", index, total_, what, elapsed,
                   left);
        std::fflush(stderr);
    }
    // A case is over: its key figure (or why there is none), on a line of its own off a terminal.
    void finished(std::size_t index, const std::string &what, const std::string &figure) {
        if (!enabled_ || terminal_) return;
        const double elapsed = (platform::now_ns() - start_) / 1e9;
        const std::size_t left = total_ > index ? total_ - index : 0;
        fmt::print(stderr, "[{}/{}] {}: {}, {:.0f} s elapsed, {} {} left\n", index, total_, what,
                   figure, elapsed, left, left == 1 ? "case" : "cases");
        std::fflush(stderr);
    }
    void clear() {
        if (enabled_ && terminal_) fmt::print(stderr, "\r\033[K");
    }

private:
    std::size_t total_;
    bool enabled_, terminal_;
    std::int64_t start_;
};

}  // namespace ipcbench::cli
