#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/latency_histogram.hpp"
#include "stats/summary_statistics.hpp"

namespace ipcbench::report {

// CPU and memory of one process over the timed phase (its stream threads' CPU).
struct process_figures {
    double cpu_user_s = 0;
    double cpu_sys_s = 0;
    double cpu_percent = 0;  // of one core; > 100 with several streams
    double cpu_us_per_mb = 0;
    double cpu_us_per_message = 0;
    std::int64_t max_rss_kib = 0;
    std::int64_t voluntary_ctx_switches = 0;
    std::int64_t involuntary_ctx_switches = 0;
    std::vector<int> cpus;  // the CPUs it was seen on when its timed windows began and ended
};

// What a worker printed during the case (plugin output, its warnings): every byte counted, the
// first 4 KiB kept, escaped. Only for sides that printed anything.
struct printed_output {
    std::uint64_t bytes = 0;
    std::string text;
};

struct throughput_figures {
    double bytes_per_sec = 0;
    double messages_per_sec = 0;
};

// Nanoseconds. kind: "round_trip" (ping-pong) or "one_way_from_schedule" (paced throughput:
// arrival minus the time the message was scheduled to be sent).
struct latency_figures {
    std::string kind = "round_trip";
    std::uint64_t min = 0;  // exact, as max
    std::uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, p9999 = 0, max = 0;
    double mean = 0;
    std::uint64_t samples = 0;
};

struct integrity_figures {
    std::uint64_t messages_sent = 0;
    std::uint64_t messages_received = 0;
    std::uint64_t lost = 0;
    std::uint64_t out_of_order = 0;
    std::uint64_t duplicated = 0;
    std::uint64_t corrupted = 0;  // --verify
    // Late arrivals older than the receiver's duplicate-detection window (65,536 messages):
    // counted as out of order; a duplicate among them would not be seen.
    std::uint64_t beyond_window = 0;
};

struct stream_figures {
    std::uint64_t messages = 0;  // received (throughput) or round trips (latency)
    double messages_per_sec = 0;
    double bytes_per_sec = 0;
    std::uint64_t lost = 0;
};

struct interval_figures {
    double end_s = 0;    // since the receiver's job started
    double seconds = 0;  // the interval's length
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::uint64_t lost = 0;
};

// One measured case: one transport, mode, direction and message size (and, with --repeat, the
// repetitions behind it). Behind every output format.
struct case_result {
    std::string plugin;
    std::string transport;
    std::string mode;                   // "throughput" or "latency"
    std::string direction = "forward";  // "forward" (client sends), "reverse"; bidir runs both
    bool bidir = false;
    std::uint64_t message_size = 0;
    int streams = 1;
    double rate = 0;  // paced messages/s per stream; 0 = unpaced
    int batch = 1;    // messages per data-path call (--batch)
    // The calls the harness made: "<sender's> -> <receiver's>", e.g. "send -> recv",
    // "borrow/publish -> take/release", "send_batch -> recv_batch".
    std::string data_path;
    double duration_s = 0;      // the measured window
    std::string status = "ok";  // "ok", "failed", "skipped", "interrupted"
    std::string error;          // why, when not ok
    std::vector<std::string> warnings;
    std::optional<throughput_figures> throughput;
    std::optional<latency_figures> latency;
    integrity_figures integrity;
    process_figures sender;    // throughput: the sending process; latency: the pinger
    process_figures receiver;  // throughput: the receiving process; latency: the ponger
    std::vector<stream_figures> per_stream;
    std::vector<interval_figures> intervals;
    std::map<std::string, std::string> options;  // effective, including defaults
    stats::latency_histogram histogram;          // latency, or one-way latency when paced
    // --repeat: each repetition, and the spread of each figure over them.
    std::map<std::string, printed_output> worker_output;  // by side ("sender", "receiver"...)
    std::vector<case_result> repetitions;
    int repeat_count = 1;  // repetitions behind the figures (kept when read back from JSON)
    std::map<std::string, std::pair<stats::summary, std::vector<double>>> statistics;
};

// The figures compared across repetitions and runs, by name ("bytes_per_sec",
// "latency_p99_ns", ...); higher_is_better tells which way is an improvement.
std::map<std::string, double> comparable_figures(const case_result &r);
bool higher_is_better(const std::string &figure);

// Fills r's top-level figures from r.repetitions: medians of the repetitions' figures, latency
// from their merged histograms, integrity summed; adds warnings for noisy figures (cv above
// cv_warning), lost messages, and repetitions that failed.
void summarize_repetitions(case_result &r, double cv_warning);

}  // namespace ipcbench::report
