#include "report/table_report.hpp"

#include <fmt/format.h>

namespace ipcbench::report {
namespace {

std::string rate(double per_sec) {
    if (per_sec >= 1e9) return fmt::format("{:.2f}G", per_sec / 1e9);
    if (per_sec >= 1e6) return fmt::format("{:.2f}M", per_sec / 1e6);
    if (per_sec >= 1e3) return fmt::format("{:.1f}k", per_sec / 1e3);
    return fmt::format("{:.0f}", per_sec);
}

std::string micros(double ns) { return fmt::format("{:.2f}", ns / 1e3); }

std::string rss(std::int64_t kib) { return fmt::format("{:.1f}M", kib / 1024.0); }

}  // namespace

std::string format_size(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

std::string to_table(const run_report &report) {
    const auto &env = report.environment;
    std::string out = fmt::format("ipcbench {} on {} {} ({}, {} cores), {}\n", IPCBENCH_VERSION,
                                  env.os, env.kernel, env.cpu_model.empty() ? "?" : env.cpu_model,
                                  env.cores, report.started_at);
    bool any_tp = false, any_lat = false, any_bad = false;
    for (const auto &r : report.results) {
        any_tp |= r.throughput.has_value() && r.status == "ok";
        any_lat |= r.latency.has_value() && r.status == "ok";
        any_bad |= r.status != "ok";
    }
    if (any_tp) {
        out += fmt::format(
            "\nThroughput: one-way stream, {}; MB = 10^6 B; total ms = first to last message; "
            "CPU % of one core\n",
            report.count ? fmt::format("{} messages per case", report.count)
                         : fmt::format("{:g} s per case after {:g} s warm-up", report.duration_s,
                                       report.warmup_s));
        out += fmt::format(
            "{:<18} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9} {:>7} {:>8} {:>8} {:>8} {:>8}\n",
            "transport", "size", "messages", "total ms", "MB/s", "MiB/s", "Mbit/s", "msg/s",
            "lost", "snd CPU", "rcv CPU", "snd RSS", "rcv RSS");
        for (const auto &r : report.results) {
            if (!r.throughput || r.status != "ok") continue;
            const double bps = r.throughput->bytes_per_sec;
            out += fmt::format(
                "{:<18} {:>8} {:>9} {:>9.0f} {:>9.1f} {:>9.1f} {:>8.0f} {:>9} {:>7} {:>7.0f}% "
                "{:>7.0f}% {:>8} {:>8}\n",
                r.transport, format_size(r.message_size), rate(r.integrity.messages_received),
                r.duration_s * 1e3, bps / 1e6, bps / 1048576.0, bps * 8 / 1e6,
                rate(r.throughput->messages_per_sec), r.integrity.lost, r.sender.cpu_percent,
                r.receiver.cpu_percent, rss(r.sender.max_rss_kib), rss(r.receiver.max_rss_kib));
        }
    }
    if (any_lat) {
        out += "\nLatency: round trip (ping-pong), microseconds; CPU % of one core\n";
        out += fmt::format("{:<18} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}\n",
                           "transport", "size", "p50", "p90", "p99", "p99.9", "max", "mean",
                           "trips", "png CPU", "pog CPU");
        for (const auto &r : report.results) {
            if (!r.latency || r.status != "ok") continue;
            const auto &l = *r.latency;
            out += fmt::format(
                "{:<18} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7.0f}% {:>7.0f}%\n",
                r.transport, format_size(r.message_size), micros(l.p50), micros(l.p90),
                micros(l.p99), micros(l.p999), micros(l.max), micros(l.mean), rate(l.samples),
                r.sender.cpu_percent, r.receiver.cpu_percent);
        }
    }
    if (any_bad) {
        out += "\nNot measured\n";
        for (const auto &r : report.results)
            if (r.status != "ok")
                out += fmt::format("{:<18} {:>8} {:<10} {}: {}\n", r.transport,
                                   format_size(r.message_size), r.mode, r.status, r.error);
    }
    return out;
}

}  // namespace ipcbench::report
