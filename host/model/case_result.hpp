#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "model/case_settings.hpp"
#include "model/interval_figures.hpp"
#include "stats/latency_histogram.hpp"
#include "stats/stream_spread.hpp"
#include "stats/summary_statistics.hpp"

namespace ipcbench::model {

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
    // Peak RSS minus the RSS before the endpoints were opened, over the streams (--streams N):
    // what one more stream costs in this process, its kernel buffers excluded.
    double rss_per_stream_kib = 0;
    // Who ran this side: "native" or the kit's name, and the kit's runtime ("go1.19.8").
    std::string implementation = "native";
    std::string runtime;
    // The process measured from outside, between the run request and its result: CPU of all
    // its threads (a runtime's own too) as a share of one core, and its peak RSS
    // (harness: platform/process_usage); 0 for a side that runs on an agent.
    double outside_cpu_percent = 0;
    std::int64_t outside_max_rss_kib = 0;
    // The CPUs its threads may run on at its result, every thread's affinity (a runtime's
    // own threads too), from the kernel: --affinity's effect seen from outside; empty for a side
    // on an agent or where the system does not say (Windows).
    std::vector<int> outside_allowed_cpus;
    // What a kit says of its runtime (GC cycles, pause time...), by name.
    std::map<std::string, double> kit;
    // A side run by an `ipchost serve` agent: the most sessions (clients) it ran at once while
    // this was measured, this one included (ipchost serve --max-sessions); 0 on this host.
    int agent_sessions = 0;
    // outside_cpu_percent's CPU in seconds: what a kit's own cpu_user_s + cpu_sys_s stays within
    // (the two percentages cover different spans).
    double outside_cpu_s = 0;
    // What of ipchost's environment a kit's worker did not get, by name with the reason
    // (kit/kit_environment.hpp): "LD_PRELOAD: ...", "PATH entry '/tmp/bin': ...". Empty for
    // the native worker.
    std::vector<std::string> environment_dropped;
};

// Where a row of `ipchost fleet` was measured: the two agents (the source runs the client
// side, which sends; the destination the server side), their labels from the agent list, the
// schedule's round (1-based) and how many fleet cases ran at once with this one (itself
// included). Each side's own count of sessions is its process figures' agent_sessions.
struct fleet_place {
    std::string source, destination;
    std::map<std::string, std::string> source_labels, destination_labels;
    int round = 0;
    int concurrent = 0;
};

template <class S, class V>
auto figure_fields(S &f, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, fleet_place>> {
    v("source", f.source, true);
    v("destination", f.destination, true);
    v("source_labels", f.source_labels, false);
    v("destination_labels", f.destination_labels, false);
    v("round", f.round, true);
    v("concurrent", f.concurrent, true);
}

// How the connector's connections were set up, one after another (harness: worker connect).
struct setup_figures {
    std::uint64_t connections = 0;
    double seconds = 0;
    double per_second = 0;
    std::uint64_t p50_ns = 0, p99_ns = 0, max_ns = 0;  // one connect call
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

// Where the two processes ran during the timed window: the orchestrator samples the CPU of each
// local worker's loop threads every few milliseconds (host/harness/placement_sampler.cpp).
// Only for pairs on this host; a stream's figures are those of its two threads.
struct placement_figures {
    std::uint64_t samples = 0;  // samples inside the timed window
    // Of those samples, the share in which a thread of each side had run since the sample
    // before and both were last on the same CPU: they took turns on one core.
    double same_cpu_share = 0;
    std::uint64_t sender_migrations = 0;  // moves between CPUs in the window, all loop threads
    std::uint64_t receiver_migrations = 0;
};

struct stream_figures {
    std::uint64_t messages = 0;  // received (throughput) or round trips (latency)
    double messages_per_sec = 0;
    double bytes_per_sec = 0;
    std::uint64_t lost = 0;
    std::optional<placement_figures> placement;
};

// Each figure group's field list, written once: the result file's writer and reader
// (report/json_report.cpp) walk it, so a figure has one name there and in the schema. `v` is
// called as v(name, field, required): a field that is not required was added after 1.0, and a
// file without it reads as 0. `S` is the struct, const or not.
template <class S, class V>
auto figure_fields(S &p, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, process_figures>> {
    v("cpu_user_s", p.cpu_user_s, false);
    v("cpu_sys_s", p.cpu_sys_s, false);
    v("cpu_percent", p.cpu_percent, false);
    v("cpu_us_per_mb", p.cpu_us_per_mb, false);
    v("cpu_us_per_message", p.cpu_us_per_message, false);
    v("max_rss_kib", p.max_rss_kib, false);
    v("voluntary_ctx_switches", p.voluntary_ctx_switches, false);
    v("involuntary_ctx_switches", p.involuntary_ctx_switches, false);
    v("cpus", p.cpus, false);
    v("rss_per_stream_kib", p.rss_per_stream_kib, false);
    v("implementation", p.implementation, false);
    v("runtime", p.runtime, false);
    v("outside_cpu_percent", p.outside_cpu_percent, false);
    v("outside_max_rss_kib", p.outside_max_rss_kib, false);
    v("outside_allowed_cpus", p.outside_allowed_cpus, false);
    v("outside_cpu_s", p.outside_cpu_s, false);
    v("kit", p.kit, false);
    v("agent_sessions", p.agent_sessions, false);
    v("environment_dropped", p.environment_dropped, false);
}

template <class S, class V>
auto figure_fields(S &i, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, integrity_figures>> {
    v("messages_sent", i.messages_sent, true);
    v("messages_received", i.messages_received, true);
    v("lost", i.lost, true);
    v("out_of_order", i.out_of_order, true);
    v("duplicated", i.duplicated, false);
    v("corrupted", i.corrupted, false);
    v("beyond_window", i.beyond_window, false);
}

template <class S, class V>
auto figure_fields(S &p, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, placement_figures>> {
    v("samples", p.samples, true);
    v("same_cpu_share", p.same_cpu_share, true);
    v("sender_migrations", p.sender_migrations, true);
    v("receiver_migrations", p.receiver_migrations, true);
}

template <class S, class V>
auto figure_fields(S &l, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, latency_figures>> {
    v("kind", l.kind, false);
    v("min", l.min, false);
    v("p50", l.p50, true);
    v("p90", l.p90, true);
    v("p99", l.p99, true);
    v("p999", l.p999, true);
    v("p9999", l.p9999, false);
    v("max", l.max, true);
    v("mean", l.mean, true);
    v("samples", l.samples, false);
}

template <class S, class V>
auto figure_fields(S &t, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, throughput_figures>> {
    v("bytes_per_sec", t.bytes_per_sec, true);
    v("messages_per_sec", t.messages_per_sec, true);
}

enum class case_status { ok, failed, skipped, interrupted };
const char *to_string(case_status s);
std::optional<case_status> case_status_from(const std::string &name);

// With --repeat: what every successful repetition of a case added up to.
struct repetition_totals {
    double duration_s = 0;
    integrity_figures integrity;
    std::uint64_t latency_samples = 0;
};

// One measured case: one transport, mode, direction and message size (and, with --repeat, the
// repetitions behind it). Behind every output format.
struct case_result {
    std::string plugin;
    // The case as it ran (transport, mode, size, streams, rate, batch...): the model the
    // command line built, unchanged. Read back from a result file, only the fields the file
    // carries per result are set; the rest are the run's (run_report).
    case_settings settings;
    // The half of the traffic this result measures: forward (the client sends) or reverse. A
    // bidir case (settings.direction == bidir) gives one result for each.
    traffic_direction direction = traffic_direction::forward;
    bool bidir() const { return settings.direction == traffic_direction::bidir; }
    bool is(measure_mode m) const { return settings.mode == m; }
    // The calls the harness made: "<sender's> -> <receiver's>", e.g. "send -> recv",
    // "borrow/publish -> take/release", "send_batch -> recv_batch" (docs/json-schema.md).
    std::string data_path;
    double duration_s = 0;  // the measured window
    case_status status = case_status::ok;
    bool ok() const { return status == case_status::ok; }
    std::string error;  // why, when not ok
    std::vector<std::string> warnings;
    std::optional<throughput_figures> throughput;
    std::optional<latency_figures> latency;
    std::optional<fleet_place> fleet;  // a row of `ipchost fleet`
    integrity_figures integrity;
    process_figures sender;    // throughput: the sending process; latency: the pinger
    process_figures receiver;  // throughput: the receiving process; latency: the ponger
    std::optional<placement_figures> placement;  // local pairs only
    std::vector<stream_figures> per_stream;
    std::optional<stats::stream_spread> spread;  // bytes/s per stream, with --streams > 1
    std::optional<setup_figures> setup;          // the connections' set-up, with --streams > 1
    std::vector<interval_figures> intervals;
    std::map<std::string, std::string> options;           // effective, including defaults
    stats::latency_histogram histogram;                   // latency, or one-way latency when paced
    std::map<std::string, printed_output> worker_output;  // by side ("sender", "receiver"...)
    // --repeat: each repetition, and the spread of each figure over them. The figures above are
    // then those of one repetition, the median one (repetition_summary.cpp), so a row divides
    // out; `totals` adds up every repetition that ran.
    std::vector<case_result> repetitions;
    int repeat_count = 1;       // repetitions behind the figures (kept when read back from JSON)
    int median_repetition = 0;  // which one the figures are (0-based), with --repeat
    std::optional<repetition_totals> totals;
    std::map<std::string, std::pair<stats::summary, std::vector<double>>> statistics;
};

// The figures compared across repetitions and runs, by name ("bytes_per_sec",
// "latency_p99_ns", ...); higher_is_better tells which way is an improvement.
std::map<std::string, double> comparable_figures(const case_result &r);
bool higher_is_better(const std::string &figure);

// The result file's other groups, by the same rule. A field may be a group itself (its own
// field list: an object), an optional group (null when absent), or members written as one
// nested object (`v.group(name, fields)`), so the file's layout stays what the schema says.
template <class S, class V>
auto figure_fields(S &s, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, setup_figures>> {
    v("connections", s.connections, true);
    v("seconds", s.seconds, true);
    v("per_second", s.per_second, true);
    v.group("latency_ns", [&](auto &&g) {
        g("p50", s.p50_ns, true);
        g("p99", s.p99_ns, true);
        g("max", s.max_ns, true);
    });
}

template <class S, class V>
auto figure_fields(S &s, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, stats::stream_spread>> {
    v("streams", s.n, true);
    v.group("bytes_per_sec", [&](auto &&g) {
        g("min", s.min, true);
        g("p50", s.p50, true);
        g("p99", s.p99, true);
        g("max", s.max, true);
    });
    v("jain_fairness", s.jain, true);
}

template <class S, class V>
auto figure_fields(S &s, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, stream_figures>> {
    v("messages", s.messages, false);
    v("messages_per_sec", s.messages_per_sec, false);
    v("bytes_per_sec", s.bytes_per_sec, false);
    v("lost", s.lost, false);
    v("placement", s.placement, false);
}

template <class S, class V>
auto figure_fields(S &t, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, repetition_totals>> {
    v("duration_s", t.duration_s, true);
    v("integrity", t.integrity, true);
    v("latency_samples", t.latency_samples, true);
}

template <class S, class V>
auto figure_fields(S &o, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, printed_output>> {
    v("bytes", o.bytes, true);
    v("text", o.text, true);
}

template <class S, class V>
auto figure_fields(S &i, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, interval_figures>> {
    v("end_s", i.end_s, false);
    v("seconds", i.seconds, false);
    v("messages", i.messages, false);
    v("bytes", i.bytes, false);
    v("lost", i.lost, false);
}

// A statistic over repetitions as written; a reader recomputes it from its samples.
template <class S, class V>
auto figure_fields(S &s, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, stats::summary>> {
    v("median", s.median, false);
    v("mean", s.mean, false);
    v("min", s.min, false);
    v("max", s.max, false);
    v("stddev", s.stddev, false);
    v("cv", s.cv, false);
    v("median_low", s.median_low, false);
    v("median_high", s.median_high, false);
}

}  // namespace ipcbench::model

// The reports render the model under these names (report/ was its first home).
namespace ipcbench::report {
using model::case_result;
using model::case_status;
using model::case_status_from;
using model::comparable_figures;
using model::fleet_place;
using model::higher_is_better;
using model::integrity_figures;
using model::interval_figures;
using model::latency_figures;
using model::placement_figures;
using model::printed_output;
using model::process_figures;
using model::repetition_totals;
using model::setup_figures;
using model::stream_figures;
using model::throughput_figures;
using model::to_string;
}  // namespace ipcbench::report
