#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "stats/latency_histogram.hpp"

namespace ipcbench::report {

// CPU and memory of one process over the timed phase.
struct process_figures {
    double cpu_user_s = 0;
    double cpu_sys_s = 0;
    double cpu_percent = 0;  // of one core
    std::int64_t max_rss_kib = 0;
    std::int64_t voluntary_ctx_switches = 0;
    std::int64_t involuntary_ctx_switches = 0;
};

struct throughput_figures {
    double bytes_per_sec = 0;
    double messages_per_sec = 0;
};

struct latency_figures {  // round-trip times in nanoseconds
    std::uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
    double mean = 0;
    std::uint64_t samples = 0;
};

struct integrity_figures {
    std::uint64_t messages_sent = 0;
    std::uint64_t messages_received = 0;
    std::uint64_t lost = 0;
    std::uint64_t out_of_order = 0;
    std::uint64_t duplicated = 0;
};

// One measured case: one transport, one mode, one message size. Behind every output format.
struct case_result {
    std::string plugin;
    std::string transport;
    std::string mode;  // "throughput" or "latency"
    std::uint64_t message_size = 0;
    double duration_s = 0;  // the measured window
    std::string status = "ok";  // "ok", "failed", "skipped", "interrupted"
    std::string error;          // why, when not ok
    std::optional<throughput_figures> throughput;
    std::optional<latency_figures> latency;
    integrity_figures integrity;
    process_figures sender;    // throughput: the sending process; latency: the pinger
    process_figures receiver;  // throughput: the receiving process; latency: the ponger
    std::map<std::string, std::string> options;  // effective, including defaults
    stats::latency_histogram histogram;          // latency mode
};

}  // namespace ipcbench::report
