#include "report/csv_report.hpp"

#include <fmt/format.h>

namespace ipcbench::report {
namespace {

// RFC 4180: quote fields with commas, quotes or line breaks.
std::string field(const std::string &text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string num(double v) {
    return fmt::format("{:.6g}", v);
}

}  // namespace

std::string to_csv(const run_report &report) {
    std::string out =
        "plugin,transport,mode,direction,bidir,message_size,streams,rate,batch,data_path,status,"
        "repetitions,"
        "duration_s,bytes_per_sec,messages_per_sec,mb_per_sec,mbit_per_sec,bytes_per_sec_cv,"
        "latency_kind,latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_p999_ns,"
        "latency_p9999_ns,latency_max_ns,latency_mean_ns,latency_samples,messages_sent,"
        "messages_received,lost,out_of_order,duplicated,corrupted,sender_cpu_percent,"
        "sender_cpu_us_per_mb,sender_cpu_us_per_message,sender_max_rss_kib,"
        "receiver_cpu_percent,receiver_cpu_us_per_mb,receiver_cpu_us_per_message,"
        "receiver_max_rss_kib,error\n";
    for (const auto &r : report.results) {
        const bool ok = r.status == "ok";
        auto cv = r.statistics.find("bytes_per_sec");
        out +=
            fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},", field(r.plugin), field(r.transport),
                        r.mode, r.direction, r.bidir ? 1 : 0, r.message_size, r.streams,
                        num(r.rate), r.batch, field(r.data_path), r.status, r.repeat_count);
        out += fmt::format("{},", ok ? num(r.duration_s) : "");
        if (ok && r.throughput)
            out += fmt::format("{},{},{},{},{},", num(r.throughput->bytes_per_sec),
                               num(r.throughput->messages_per_sec),
                               num(r.throughput->bytes_per_sec / 1e6),
                               num(r.throughput->bytes_per_sec * 8 / 1e6),
                               cv != r.statistics.end() ? num(cv->second.first.cv) : "");
        else
            out += ",,,,,";
        if (ok && r.latency)
            out += fmt::format("{},{},{},{},{},{},{},{},{},", r.latency->kind, r.latency->p50,
                               r.latency->p90, r.latency->p99, r.latency->p999, r.latency->p9999,
                               r.latency->max, num(r.latency->mean), r.latency->samples);
        else
            out += ",,,,,,,,,";
        if (ok)
            out += fmt::format(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},", r.integrity.messages_sent,
                r.integrity.messages_received, r.integrity.lost, r.integrity.out_of_order,
                r.integrity.duplicated, r.integrity.corrupted, num(r.sender.cpu_percent),
                num(r.sender.cpu_us_per_mb), num(r.sender.cpu_us_per_message), r.sender.max_rss_kib,
                num(r.receiver.cpu_percent), num(r.receiver.cpu_us_per_mb),
                num(r.receiver.cpu_us_per_message), r.receiver.max_rss_kib);
        else
            out += ",,,,,,,,,,,,,,";
        out += field(r.error) + "\n";
    }
    return out;
}

std::string histograms_to_csv(const run_report &report) {
    std::string out =
        "transport,mode,direction,message_size,streams,kind,value_ns,count,"
        "cumulative_percent\n";
    for (const auto &r : report.results) {
        if (r.status != "ok" || !r.latency || r.histogram.count() == 0) continue;
        const auto total = static_cast<double>(r.histogram.count());
        std::uint64_t seen = 0;
        r.histogram.for_each_bucket([&](std::uint64_t value, std::uint64_t count) {
            seen += count;
            out += fmt::format("{},{},{},{},{},{},{},{},{:.6f}\n", field(r.transport), r.mode,
                               r.direction, r.message_size, r.streams, r.latency->kind, value,
                               count, static_cast<double>(seen) / total * 100);
        });
    }
    return out;
}

}  // namespace ipcbench::report
