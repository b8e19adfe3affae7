#include "harness/case_figures.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/units.hpp"

namespace ipcbench::harness {
namespace {

using model::loop_result;

// A process's CPU over its timed window, and per unit of work.
report::process_figures figures_from(const loop_result &side, std::uint64_t messages,
                                     double bytes) {
    const auto &u = side.usage;
    report::process_figures f;
    f.cpu_user_s = u.cpu_user_s;
    f.cpu_sys_s = u.cpu_sys_s;
    const double cpu = u.cpu_user_s + u.cpu_sys_s, window = side.window_s();
    f.cpu_percent = window > 0 ? cpu / window * 100 : 0;
    f.cpu_us_per_mb = model::cpu_us_per_mb(cpu, bytes);
    f.cpu_us_per_message = messages ? cpu * 1e6 / static_cast<double>(messages) : 0;
    f.max_rss_kib = u.max_rss_kib;
    f.voluntary_ctx_switches = u.voluntary_ctx_switches;
    f.involuntary_ctx_switches = u.involuntary_ctx_switches;
    for (int cpu_id = 0; cpu_id < 64; ++cpu_id)
        if (u.cpus_seen & (std::uint64_t{1} << cpu_id)) f.cpus.push_back(cpu_id);
    return f;
}

report::latency_figures latency_from(const stats::latency_histogram &h, const char *kind) {
    report::latency_figures l;
    l.kind = kind;
    l.p50 = h.percentile(50);
    l.p90 = h.percentile(90);
    l.p99 = h.percentile(99);
    l.p999 = h.percentile(99.9);
    l.p9999 = h.percentile(99.99);
    l.min = h.min();
    l.max = h.max();
    l.mean = h.mean();
    l.samples = h.count();
    return l;
}

// Each loop thread once (an event engine runs many streams on one).
std::vector<std::int64_t> threads_of(const loop_result &side) {
    std::vector<std::int64_t> ids;
    for (const auto &s : side.streams)
        if (std::find(ids.begin(), ids.end(), s.thread_id) == ids.end()) ids.push_back(s.thread_id);
    return ids;
}

// Placement speaks of a stream's own two threads: only the thread engine has them (an event
// engine's threads share many streams, and their "same CPU" share says nothing of a pair).
bool own_threads(const report::case_result &r) {
    return r.settings.io == model::io_engine::threads ||
           r.settings.io == model::io_engine::automatic;
}

std::uint64_t lost(std::uint64_t sent, const loop_result &received) {
    const std::uint64_t unique = received.messages_received - received.duplicates;
    return sent > unique ? sent - unique : 0;
}

// Placement speaks of the part of a window in which both sides ran their timed loops: a
// ponger may still be pinning itself (--affinity) when the pinger's first ping goes out, and a
// move it made then is none of the window's.
std::int64_t both_timed_from(const loop_result &window, const loop_result &a,
                             const loop_result &b) {
    return std::max({window.first_ns, a.first_ns, b.first_ns});
}

// Stream k: its two loop threads over the stream's own window.
std::optional<report::placement_figures> stream_placement(const placement_sampler &placement,
                                                          const loop_result &window,
                                                          const loop_result *a,
                                                          const loop_result *b) {
    if (a == nullptr || b == nullptr) return std::nullopt;
    return placement.figures(both_timed_from(window, *a, *b), window.end_ns, {a->thread_id},
                             {b->thread_id});
}

}  // namespace

void fill_throughput(report::case_result &r, const loop_result &sent, const loop_result &received,
                     const placement_sampler &placement) {
    const double window = received.window_s();
    r.duration_s = window;
    const double messages_per_sec =
        model::per_second(static_cast<double>(received.counted_messages), window);
    r.throughput = report::throughput_figures{
        messages_per_sec * static_cast<double>(r.settings.size_bytes), messages_per_sec};
    r.integrity.messages_sent = sent.messages_sent;
    r.integrity.messages_received = received.messages_received;
    r.integrity.lost = lost(sent.messages_sent, received);
    r.integrity.out_of_order = received.out_of_order;
    r.integrity.duplicated = received.duplicates;
    r.integrity.beyond_window = received.beyond_window;
    r.integrity.corrupted = received.corrupted;
    // Bytes are messages x size, here and nowhere else on the host: a worker's bytes_sent and
    // bytes_received (protocol 1.0 fields) are not read, so a kit cannot make them disagree.
    const double size = static_cast<double>(r.settings.size_bytes);
    r.sender =
        figures_from(sent, sent.messages_sent, static_cast<double>(sent.messages_sent) * size);
    r.receiver = figures_from(received, received.messages_received,
                              static_cast<double>(received.messages_received) * size);
    for (std::size_t k = 0; k < received.streams.size(); ++k) {
        const loop_result &s = received.streams[k];
        const loop_result *sender = k < sent.streams.size() ? &sent.streams[k] : nullptr;
        report::stream_figures f;
        f.messages = s.messages_received;
        f.messages_per_sec =
            model::per_second(static_cast<double>(s.counted_messages), s.window_s());
        f.bytes_per_sec = f.messages_per_sec * static_cast<double>(r.settings.size_bytes);
        f.lost = lost(sender ? sender->messages_sent : 0, s);
        if (own_threads(r)) f.placement = stream_placement(placement, s, sender, &s);
        r.per_stream.push_back(f);
    }
    if (own_threads(r))
        r.placement = placement.figures(received.first_ns, received.end_ns, threads_of(sent),
                                        threads_of(received));
    if (received.histogram) {
        r.histogram = *received.histogram;
        r.latency = latency_from(r.histogram, "one_way_from_schedule");
    }
}

std::string echo_problem(const loop_result &pinger, const loop_result &ponger,
                         const std::string &ponger_name) {
    const std::uint64_t pings = pinger.warmup_messages + pinger.pings_sent;
    if (ponger.echoed == pings) return "";
    return fmt::format(
        "the ponger ({}) says it echoed {} messages where the pinger sent {} pings "
        "({} warm-up, {} timed), each answered: `echoed` counts every ping it sent "
        "back, warm-up ones included, end markers not",
        ponger_name, ponger.echoed, pings, pinger.warmup_messages, pinger.pings_sent);
}

void fill_latency(report::case_result &r, const loop_result &pinger, const loop_result &ponger,
                  const placement_sampler &placement) {
    if (pinger.histogram) r.histogram = *pinger.histogram;
    r.latency = latency_from(r.histogram, "round_trip");
    r.duration_s = pinger.window_s();
    r.integrity.messages_sent = pinger.pings_sent;
    r.integrity.messages_received = pinger.round_trips;
    r.integrity.lost = pinger.lost;
    r.integrity.out_of_order = pinger.mismatched;
    r.integrity.corrupted = pinger.corrupted;
    const std::uint64_t trips = pinger.round_trips;
    // Both directions: each round trip moves the message there and back.
    const double bytes =
        2.0 * static_cast<double>(trips) * static_cast<double>(r.settings.size_bytes);
    r.sender = figures_from(pinger, trips, bytes);
    r.receiver = figures_from(ponger, trips, bytes);
    for (std::size_t k = 0; k < pinger.streams.size(); ++k) {
        const loop_result &s = pinger.streams[k];
        report::stream_figures f;
        f.messages = s.round_trips;
        f.messages_per_sec = model::per_second(static_cast<double>(f.messages), s.window_s());
        f.bytes_per_sec = f.messages_per_sec * 2.0 * static_cast<double>(r.settings.size_bytes);
        f.lost = s.lost;
        if (own_threads(r))
            f.placement = stream_placement(
                placement, s, &s, k < ponger.streams.size() ? &ponger.streams[k] : nullptr);
        r.per_stream.push_back(f);
    }
    if (own_threads(r))
        r.placement = placement.figures(both_timed_from(pinger, pinger, ponger), pinger.end_ns,
                                        threads_of(pinger), threads_of(ponger));
}

}  // namespace ipcbench::harness
