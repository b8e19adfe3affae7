#include "platform/resource_usage.hpp"

#include "platform/windows_api.hpp"

#include <psapi.h>

namespace ipcbench::platform {
namespace {

double seconds(const FILETIME &t) {
    return static_cast<double>((static_cast<unsigned long long>(t.dwHighDateTime) << 32) |
                               t.dwLowDateTime) /
           1e7;
}

// Peak working set: the process's own figure, read by the process itself (for an exited child
// wine returns zeros, so every worker reports its own before it exits).
std::int64_t peak_rss_kib() {
    PROCESS_MEMORY_COUNTERS counters{};
    counters.cb = sizeof counters;
    if (!GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters)) return 0;
    return static_cast<std::int64_t>(counters.PeakWorkingSetSize / 1024);
}

void note_cpu(resource_usage &usage) {
    const DWORD cpu = GetCurrentProcessorNumber();
    if (cpu < 64) usage.cpus_seen = std::uint64_t{1} << cpu;
}

}  // namespace

// Context switches are not counted per process on Windows: they stay 0.
resource_usage sample_resource_usage() {
    resource_usage usage;
    FILETIME created{}, exited{}, kernel{}, user{};
    if (GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) {
        usage.cpu_user_s = seconds(user);
        usage.cpu_sys_s = seconds(kernel);
    }
    usage.max_rss_kib = peak_rss_kib();
    note_cpu(usage);
    return usage;
}

resource_usage sample_thread_usage() {
    resource_usage usage;
    FILETIME created{}, exited{}, kernel{}, user{};
    if (GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) {
        usage.cpu_user_s = seconds(user);
        usage.cpu_sys_s = seconds(kernel);
    }
    usage.max_rss_kib = peak_rss_kib();
    note_cpu(usage);
    return usage;
}

}  // namespace ipcbench::platform
