#pragma once

#include <cstdint>
#include <ctime>

namespace ipcbench::platform {

// CLOCK_MONOTONIC in nanoseconds: shared by all processes of one host, never jumps.
inline std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace ipcbench::platform
