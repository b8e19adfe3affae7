#pragma once

#include <fmt/format.h>
#include <cstdint>
#include <cstdio>
#include <string>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::cli {

// "case 3 of 24, 12 s elapsed, about 84 s left" on one refreshed stderr line.
class progress_line {
public:
    progress_line(std::size_t total, bool enabled)
        : total_(total), enabled_(enabled), start_(platform::now_ns()) {}
    void show(std::size_t index, const std::string &what) {
        if (!enabled_) return;
        const double elapsed = (platform::now_ns() - start_) / 1e9;
        std::string left = index > 1 ? fmt::format(", about {:.0f} s left",
                                                   elapsed / (index - 1) * (total_ - index + 1))
                                     : "";
        fmt::print(stderr, "\r\033[K[{}/{}] {}, {:.0f} s elapsed{}", index, total_, what, elapsed,
                   left);
        std::fflush(stderr);
    }
    void clear() {
        if (enabled_) fmt::print(stderr, "\r\033[K");
    }

private:
    std::size_t total_;
    bool enabled_;
    std::int64_t start_;
};

}  // namespace ipcbench::cli
