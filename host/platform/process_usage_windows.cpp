#include "platform/process_usage.hpp"

#include <windows.h>

#include <psapi.h>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::platform {

std::optional<process_usage> read_process_usage(long pid) {
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
    if (h == nullptr) return std::nullopt;
    FILETIME created, exited, kernel, user;
    process_usage u;
    u.at_ns = now_ns();
    const auto seconds = [](FILETIME t) {
        ULARGE_INTEGER v;
        v.LowPart = t.dwLowDateTime;
        v.HighPart = t.dwHighDateTime;
        return static_cast<double>(v.QuadPart) / 1e7;  // 100 ns units
    };
    if (GetProcessTimes(h, &created, &exited, &kernel, &user))
        u.cpu_s = seconds(kernel) + seconds(user);
    PROCESS_MEMORY_COUNTERS memory{};
    if (GetProcessMemoryInfo(h, &memory, sizeof memory))
        u.peak_rss_kib = static_cast<std::int64_t>(memory.PeakWorkingSetSize / 1024);
    CloseHandle(h);
    return u;
}

}  // namespace ipcbench::platform
