#include "report/result_columns.hpp"

#include <fmt/format.h>

namespace ipcbench::report {
namespace {

std::string rate(double per_sec) {
    if (per_sec >= 1e9) return fmt::format("{:.2f}G", per_sec / 1e9);
    if (per_sec >= 1e6) return fmt::format("{:.2f}M", per_sec / 1e6);
    if (per_sec >= 1e3) return fmt::format("{:.1f}k", per_sec / 1e3);
    return fmt::format("{:.0f}", per_sec);
}
std::string micros(double ns) {
    return fmt::format("{:.2f}", ns / 1e3);
}
// Peak RSS in binary units, said so: the table's MB is 10^6 B.
std::string rss(std::int64_t kib) {
    return fmt::format("{:.1f}MiB", kib / 1024.0);
}
std::string percent(double p) {
    return fmt::format("{:.0f}%", p);
}

std::string spread(const case_result &r, const char *figure) {
    auto it = r.statistics.find(figure);
    if (it == r.statistics.end() || it->second.first.n < 2) return "-";
    return fmt::format("{:.1f}%", it->second.first.cv * 100);
}

template <class Pred>
bool any(const run_report &report, Pred pred) {
    for (const auto &r : report.results)
        if (pred(r)) return true;
    return false;
}

// The calls column appears only when some case left the default path.
bool shows_calls(const run_report &report) {
    return any(report, [](const case_result &r) {
        return !r.data_path.empty() && r.data_path != "send -> recv";
    });
}
column calls_column() {
    return {"calls", [](const case_result &r) { return r.data_path.empty() ? "-" : r.data_path; }};
}

}  // namespace

bool is_throughput(const case_result &r) {
    return r.status == "ok" && r.throughput.has_value();
}
bool is_latency(const case_result &r) {
    return r.status == "ok" && r.mode == "latency" && r.latency.has_value();
}

std::string format_size(std::uint64_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

std::vector<column> throughput_columns(const run_report &report) {
    std::vector<column> c;
    c.push_back({"transport", [](const case_result &r) { return r.transport; }});
    if (any(report, [](const case_result &r) { return r.direction != "forward" || r.bidir; }))
        c.push_back({"direction", [](const case_result &r) {
                         return r.direction + (r.bidir ? " (bidir)" : "");
                     }});
    c.push_back({"size", [](const case_result &r) { return format_size(r.message_size); }});
    if (any(report, [](const case_result &r) { return r.streams > 1; }))
        c.push_back({"streams", [](const case_result &r) { return std::to_string(r.streams); }});
    if (shows_calls(report)) c.push_back(calls_column());
    c.push_back({"messages", [](const case_result &r) {
                     return rate(static_cast<double>(r.integrity.messages_received));
                 }});
    c.push_back({"total ms",
                 [](const case_result &r) { return fmt::format("{:.0f}", r.duration_s * 1e3); }});
    c.push_back({"MB/s", [](const case_result &r) {
                     return fmt::format("{:.1f}", r.throughput->bytes_per_sec / 1e6);
                 }});
    c.push_back({"MiB/s", [](const case_result &r) {
                     return fmt::format("{:.1f}", r.throughput->bytes_per_sec / 1048576.0);
                 }});
    c.push_back({"Mbit/s", [](const case_result &r) {
                     return fmt::format("{:.0f}", r.throughput->bytes_per_sec * 8 / 1e6);
                 }});
    c.push_back(
        {"msg/s", [](const case_result &r) { return rate(r.throughput->messages_per_sec); }});
    if (report.repeat > 1)
        c.push_back({"cv", [](const case_result &r) { return spread(r, "bytes_per_sec"); }});
    c.push_back({"lost", [](const case_result &r) { return std::to_string(r.integrity.lost); }});
    if (any(report, [](const case_result &r) {
            return r.integrity.corrupted > 0 || r.integrity.duplicated > 0;
        })) {
        c.push_back(
            {"dup", [](const case_result &r) { return std::to_string(r.integrity.duplicated); }});
        c.push_back({"corrupt",
                     [](const case_result &r) { return std::to_string(r.integrity.corrupted); }});
    }
    if (any(report,
            [](const case_result &r) { return is_throughput(r) && r.latency.has_value(); })) {
        c.push_back({"1-way p50 us", [](const case_result &r) {
                         return r.latency ? micros(static_cast<double>(r.latency->p50)) : "-";
                     }});
        c.push_back({"p99.9 us", [](const case_result &r) {
                         return r.latency ? micros(static_cast<double>(r.latency->p999)) : "-";
                     }});
    }
    c.push_back({"snd CPU", [](const case_result &r) { return percent(r.sender.cpu_percent); }});
    c.push_back({"rcv CPU", [](const case_result &r) { return percent(r.receiver.cpu_percent); }});
    c.push_back({"snd us/MB", [](const case_result &r) {
                     return fmt::format("{:.0f}", r.sender.cpu_us_per_mb);
                 }});
    c.push_back({"rcv us/MB", [](const case_result &r) {
                     return fmt::format("{:.0f}", r.receiver.cpu_us_per_mb);
                 }});
    c.push_back({"snd RSS", [](const case_result &r) { return rss(r.sender.max_rss_kib); }});
    c.push_back({"rcv RSS", [](const case_result &r) { return rss(r.receiver.max_rss_kib); }});
    return c;
}

std::vector<column> latency_columns(const run_report &report) {
    std::vector<column> c;
    c.push_back({"transport", [](const case_result &r) { return r.transport; }});
    c.push_back({"size", [](const case_result &r) { return format_size(r.message_size); }});
    if (any(report, [](const case_result &r) { return r.streams > 1; }))
        c.push_back({"streams", [](const case_result &r) { return std::to_string(r.streams); }});
    if (shows_calls(report)) c.push_back(calls_column());
    auto pct = [](std::uint64_t latency_figures::*m) {
        return [m](const case_result &r) { return micros(static_cast<double>((*r.latency).*m)); };
    };
    c.push_back({"p50", pct(&latency_figures::p50)});
    c.push_back({"p90", pct(&latency_figures::p90)});
    c.push_back({"p99", pct(&latency_figures::p99)});
    c.push_back({"p99.9", pct(&latency_figures::p999)});
    c.push_back({"p99.99", pct(&latency_figures::p9999)});
    c.push_back({"max", pct(&latency_figures::max)});
    c.push_back({"mean", [](const case_result &r) { return micros(r.latency->mean); }});
    if (report.repeat > 1)
        c.push_back({"cv p50", [](const case_result &r) { return spread(r, "latency_p50_ns"); }});
    c.push_back({"trips", [](const case_result &r) {
                     return rate(static_cast<double>(r.latency->samples));
                 }});
    c.push_back({"pinger CPU", [](const case_result &r) { return percent(r.sender.cpu_percent); }});
    c.push_back(
        {"ponger CPU", [](const case_result &r) { return percent(r.receiver.cpu_percent); }});
    c.push_back({"CPU us/trip", [](const case_result &r) {
                     return fmt::format(
                         "{:.1f}", r.sender.cpu_us_per_message + r.receiver.cpu_us_per_message);
                 }});
    return c;
}

}  // namespace ipcbench::report
