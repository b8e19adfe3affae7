#include "report/json_report.hpp"

#include <stdexcept>

namespace ipcbench::report {
namespace {

using nlohmann::json;

json process_json(const process_figures &p) {
    return {{"cpu_user_s", p.cpu_user_s},
            {"cpu_sys_s", p.cpu_sys_s},
            {"cpu_percent", p.cpu_percent},
            {"cpu_us_per_mb", p.cpu_us_per_mb},
            {"cpu_us_per_message", p.cpu_us_per_message},
            {"max_rss_kib", p.max_rss_kib},
            {"voluntary_ctx_switches", p.voluntary_ctx_switches},
            {"involuntary_ctx_switches", p.involuntary_ctx_switches},
            {"cpus", p.cpus}};
}

process_figures process_from(const json &j) {
    process_figures p;
    p.cpu_user_s = j.value("cpu_user_s", 0.0);
    p.cpu_sys_s = j.value("cpu_sys_s", 0.0);
    p.cpu_percent = j.value("cpu_percent", 0.0);
    p.cpu_us_per_mb = j.value("cpu_us_per_mb", 0.0);
    p.cpu_us_per_message = j.value("cpu_us_per_message", 0.0);
    p.max_rss_kib = j.value("max_rss_kib", std::int64_t{0});
    p.voluntary_ctx_switches = j.value("voluntary_ctx_switches", std::int64_t{0});
    p.involuntary_ctx_switches = j.value("involuntary_ctx_switches", std::int64_t{0});
    p.cpus = j.value("cpus", std::vector<int>{});
    return p;
}

// Only sides that printed: {"receiver": {"bytes": 4194304, "text": "first 4 KiB..."}}.
json worker_output_json(const case_result &r) {
    json out = json::object();
    for (const auto &[side, printed] : r.worker_output)
        out[side] = {{"bytes", printed.bytes}, {"text", printed.text}};
    return out;
}

json result_json(const case_result &r) {
    json j = {
        {"plugin", r.plugin},       {"transport", r.transport}, {"mode", r.mode},
        {"direction", r.direction}, {"bidir", r.bidir},         {"message_size", r.message_size},
        {"streams", r.streams},     {"rate", r.rate},           {"batch", r.batch},
        {"data_path", r.data_path}, {"status", r.status},       {"duration_s", r.duration_s},
        {"options", r.options},     {"warnings", r.warnings}};
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.worker_output.empty()) j["worker_output"] = worker_output_json(r);
    if (r.status != "ok") return j;
    j["throughput"] = nullptr;
    j["latency_ns"] = nullptr;
    if (r.throughput)
        j["throughput"] = {{"bytes_per_sec", r.throughput->bytes_per_sec},
                           {"messages_per_sec", r.throughput->messages_per_sec},
                           {"mb_per_sec", r.throughput->bytes_per_sec / 1e6},
                           {"mib_per_sec", r.throughput->bytes_per_sec / (1024.0 * 1024.0)},
                           {"mbit_per_sec", r.throughput->bytes_per_sec * 8 / 1e6}};
    if (r.latency)
        j["latency_ns"] = {{"kind", r.latency->kind},       {"p50", r.latency->p50},
                           {"p90", r.latency->p90},         {"p99", r.latency->p99},
                           {"p999", r.latency->p999},       {"p9999", r.latency->p9999},
                           {"max", r.latency->max},         {"mean", r.latency->mean},
                           {"samples", r.latency->samples}, {"min", r.latency->min}};
    j["integrity"] = {{"messages_sent", r.integrity.messages_sent},
                      {"messages_received", r.integrity.messages_received},
                      {"lost", r.integrity.lost},
                      {"out_of_order", r.integrity.out_of_order},
                      {"duplicated", r.integrity.duplicated},
                      {"corrupted", r.integrity.corrupted},
                      {"beyond_window", r.integrity.beyond_window}};
    j["sender"] = process_json(r.sender);
    j["receiver"] = process_json(r.receiver);
    json streams = json::array();
    for (const auto &s : r.per_stream)
        streams.push_back({{"messages", s.messages},
                           {"messages_per_sec", s.messages_per_sec},
                           {"bytes_per_sec", s.bytes_per_sec},
                           {"lost", s.lost}});
    j["per_stream"] = streams;
    json intervals = json::array();
    for (const auto &i : r.intervals)
        intervals.push_back({{"end_s", i.end_s},
                             {"seconds", i.seconds},
                             {"messages", i.messages},
                             {"bytes", i.bytes},
                             {"lost", i.lost},
                             {"mb_per_sec", i.seconds > 0 ? i.bytes / i.seconds / 1e6 : 0.0}});
    j["intervals"] = intervals;
    j["repetitions"] = r.repeat_count;
    json statistics = json::object();
    for (const auto &[name, entry] : r.statistics) {
        const auto &[s, samples] = entry;
        statistics[name] = {{"median", s.median}, {"mean", s.mean},     {"min", s.min},
                            {"max", s.max},       {"stddev", s.stddev}, {"cv", s.cv},
                            {"samples", samples}};
    }
    j["statistics"] = statistics;
    if (r.histogram.count()) j["histogram"] = r.histogram.to_json();
    return j;
}

case_result result_from(const json &j) {
    case_result r;
    r.plugin = j.at("plugin");
    r.transport = j.at("transport");
    r.mode = j.at("mode");
    r.direction = j.value("direction", "forward");
    r.bidir = j.value("bidir", false);
    r.message_size = j.at("message_size");
    r.streams = j.value("streams", 1);
    r.rate = j.value("rate", 0.0);
    r.batch = j.value("batch", 1);
    r.data_path = j.value("data_path", "");
    r.status = j.at("status");
    r.error = j.value("error", "");
    r.duration_s = j.value("duration_s", 0.0);
    r.options = j.value("options", std::map<std::string, std::string>{});
    r.warnings = j.value("warnings", std::vector<std::string>{});
    if (const auto printed_by = j.find("worker_output"); printed_by != j.end())
        for (const auto &[side, printed] : printed_by->items())
            r.worker_output[side] = {printed.at("bytes").get<std::uint64_t>(),
                                     printed.at("text").get<std::string>()};
    r.repeat_count = j.value("repetitions", 1);
    if (r.status != "ok") return r;
    if (j.contains("throughput") && !j["throughput"].is_null())
        r.throughput = throughput_figures{j["throughput"].at("bytes_per_sec"),
                                          j["throughput"].at("messages_per_sec")};
    if (j.contains("latency_ns") && !j["latency_ns"].is_null()) {
        const auto &l = j["latency_ns"];
        latency_figures f;
        f.kind = l.value("kind", "round_trip");
        f.p50 = l.at("p50");
        f.p90 = l.at("p90");
        f.p99 = l.at("p99");
        f.p999 = l.at("p999");
        f.p9999 = l.value("p9999", l.at("p999").get<std::uint64_t>());
        f.max = l.at("max");
        f.min = l.value("min", std::uint64_t{0});
        f.mean = l.at("mean");
        f.samples = l.value("samples", std::uint64_t{0});
        r.latency = f;
    }
    const auto &i = j.at("integrity");
    r.integrity = {i.at("messages_sent"),
                   i.at("messages_received"),
                   i.at("lost"),
                   i.at("out_of_order"),
                   i.value("duplicated", std::uint64_t{0}),
                   i.value("corrupted", std::uint64_t{0}),
                   i.value("beyond_window", std::uint64_t{0})};
    r.sender = process_from(j.at("sender"));
    r.receiver = process_from(j.at("receiver"));
    for (const auto &s : j.value("per_stream", json::array()))
        r.per_stream.push_back({s.value("messages", std::uint64_t{0}),
                                s.value("messages_per_sec", 0.0), s.value("bytes_per_sec", 0.0),
                                s.value("lost", std::uint64_t{0})});
    for (const auto &v : j.value("intervals", json::array()))
        r.intervals.push_back(
            {v.value("end_s", 0.0), v.value("seconds", 0.0), v.value("messages", std::uint64_t{0}),
             v.value("bytes", std::uint64_t{0}), v.value("lost", std::uint64_t{0})});
    const json statistics = j.value("statistics", json::object());
    for (const auto &[name, s] : statistics.items()) {
        stats::summary sum;
        auto samples = s.value("samples", std::vector<double>{});
        sum = stats::summarize(samples);
        r.statistics[name] = {sum, samples};
    }
    if (j.contains("histogram")) r.histogram = stats::latency_histogram::from_json(j["histogram"]);
    return r;
}

}  // namespace

json to_json(const run_report &report) {
    const auto &env = report.environment;
    json results = json::array();
    for (const auto &r : report.results) results.push_back(result_json(r));
    return {{"schema_version", json_schema_version},
            {"ipcbench_version", IPCBENCH_VERSION},
            {"started_at", report.started_at},
            {"command_line", report.command_line},
            {"environment",
             {{"os", env.os},
              {"kernel", env.kernel},
              {"machine", env.machine},
              {"cpu_model", env.cpu_model},
              {"cpu_governor", env.governor},
              {"cores", env.cores},
              {"hostname", env.hostname},
              {"load_average_1m", env.load_average_1m}}},
            {"settings",
             {{"duration_s", report.duration_s},
              {"warmup_s", report.warmup_s},
              {"count", report.count},
              {"repeat", report.repeat},
              {"peer", report.peer},
              {"latency_histogram_relative_error", stats::latency_histogram::relative_error}}},
            {"results", results}};
}

run_report run_report_from_json(const json &doc) {
    if (!doc.is_object() || !doc.contains("schema_version"))
        throw std::runtime_error("not an ipchost result file (no schema_version)");
    if (doc["schema_version"] != json_schema_version)
        throw std::runtime_error("result file has schema_version " + doc["schema_version"].dump() +
                                 "; this ipchost reads " + std::to_string(json_schema_version));
    run_report report;
    report.started_at = doc.value("started_at", "");
    report.command_line = doc.value("command_line", "");
    const auto &env = doc.value("environment", json::object());
    report.environment.os = env.value("os", "");
    report.environment.kernel = env.value("kernel", "");
    report.environment.machine = env.value("machine", "");
    report.environment.cpu_model = env.value("cpu_model", "");
    report.environment.governor = env.value("cpu_governor", "");
    report.environment.cores = env.value("cores", 0u);
    report.environment.hostname = env.value("hostname", "");
    report.environment.load_average_1m = env.value("load_average_1m", -1.0);
    const auto &settings = doc.value("settings", json::object());
    report.duration_s = settings.value("duration_s", 0.0);
    report.warmup_s = settings.value("warmup_s", 0.0);
    report.count = settings.value("count", std::uint64_t{0});
    report.repeat = settings.value("repeat", 1);
    report.peer = settings.value("peer", "");
    for (const auto &r : doc.at("results")) report.results.push_back(result_from(r));
    return report;
}

}  // namespace ipcbench::report
