#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>

namespace ipcbench::platform {

// A monotonic clock in nanoseconds, shared by all processes of one host and never jumping:
// CLOCK_MONOTONIC (on Windows, mingw-w64's clock_gettime reads QueryPerformanceCounter).
inline std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// How early sleep_until_ns may wake: the caller spins the rest. Windows' sleeps end on its timer
// tick (1 to 15.6 ms), Linux's within tens of microseconds.
#ifdef _WIN32
constexpr std::int64_t sleep_slack_ns = 16'000'000;
#else
constexpr std::int64_t sleep_slack_ns = 50'000;
#endif

// Sleeps until about `when` (now_ns time) minus sleep_slack_ns, never past `when`.
inline void sleep_until_ns(std::int64_t when) {
    const std::int64_t wake = when - sleep_slack_ns;
    if (wake <= now_ns()) return;
#ifdef _WIN32
    std::this_thread::sleep_for(std::chrono::nanoseconds(wake - now_ns()));
#else
    timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
#endif
}

}  // namespace ipcbench::platform
