#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ipcbench::harness {

// What to measure in one case.
struct case_spec {
    std::string transport_id;
    std::string mode;  // "throughput" or "latency"
    std::uint64_t size = 0;
    double duration_s = 1.0;
    double warmup_s = 0.25;
    std::uint64_t count = 0;  // > 0: a fixed number of messages / round trips instead of duration
    double timeout_s = 0;     // watchdog for the whole case; 0 = derived from duration
    std::map<std::string, std::string> options;  // user options for this transport
};

}  // namespace ipcbench::harness
