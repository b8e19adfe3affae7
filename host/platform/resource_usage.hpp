#pragma once

#include <cstdint>

namespace ipcbench::platform {

// What a process spent, from getrusage(RUSAGE_SELF): all threads of the calling process.
struct resource_usage {
    double cpu_user_s = 0;
    double cpu_sys_s = 0;
    std::int64_t max_rss_kib = 0;  // peak over the process lifetime, not a difference
    std::int64_t voluntary_ctx_switches = 0;
    std::int64_t involuntary_ctx_switches = 0;
    // CPUs the sampling thread was seen on (bit n = CPU n, up to 63), OR-ed over samples and
    // threads: where a process ran when its timed windows began and ended.
    std::uint64_t cpus_seen = 0;
};

resource_usage sample_resource_usage();
// The calling thread only (Linux RUSAGE_THREAD); max_rss_kib is still the process's.
resource_usage sample_thread_usage();

// Adds b's counters to a (max_rss_kib: the larger).
void accumulate(resource_usage &a, const resource_usage &b);

// after - before for the counters; max_rss_kib is taken from `after`.
resource_usage usage_between(const resource_usage &before, const resource_usage &after);

}  // namespace ipcbench::platform
