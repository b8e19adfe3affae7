#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ipcbench::platform {

// Another process's CPU time and peak memory as the kernel keeps them, whatever it says of
// itself: every thread it has run (a runtime's scheduler and GC threads too), read from outside
// (Linux: /proc/PID/stat and /proc/PID/status VmHWM; Windows: GetProcessTimes and the peak
// working set). What the orchestrator sets beside each worker's own figures.
struct process_usage {
    double cpu_s = 0;  // user + system, all threads so far
    std::int64_t peak_rss_kib = 0;
    std::int64_t at_ns = 0;  // when it was read (monotonic)
    // The CPUs any of its threads may run on: the union of every thread's affinity (Linux:
    // /proc/PID/task/*/status Cpus_allowed_list), ascending; empty where it cannot be read
    // (Windows: not read).
    std::vector<int> allowed_cpus;
};
std::optional<process_usage> read_process_usage(long pid);

}  // namespace ipcbench::platform
