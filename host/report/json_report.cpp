#include "report/json_report.hpp"

namespace ipcbench::report {
namespace {

nlohmann::json process_json(const process_figures &p) {
    return {{"cpu_user_s", p.cpu_user_s},
            {"cpu_sys_s", p.cpu_sys_s},
            {"cpu_percent", p.cpu_percent},
            {"max_rss_kib", p.max_rss_kib},
            {"voluntary_ctx_switches", p.voluntary_ctx_switches},
            {"involuntary_ctx_switches", p.involuntary_ctx_switches}};
}

nlohmann::json result_json(const case_result &r) {
    nlohmann::json j = {{"plugin", r.plugin},
                        {"transport", r.transport},
                        {"mode", r.mode},
                        {"message_size", r.message_size},
                        {"status", r.status},
                        {"duration_s", r.duration_s},
                        {"options", r.options}};
    if (!r.error.empty()) j["error"] = r.error;
    if (r.status != "ok" && r.status != "interrupted") return j;
    j["throughput"] = nullptr;
    j["latency_ns"] = nullptr;
    if (r.throughput) {
        j["throughput"] = {{"bytes_per_sec", r.throughput->bytes_per_sec},
                           {"messages_per_sec", r.throughput->messages_per_sec},
                           {"mb_per_sec", r.throughput->bytes_per_sec / 1e6},
                           {"mib_per_sec", r.throughput->bytes_per_sec / (1024.0 * 1024.0)}};
    }
    if (r.latency) {
        j["latency_ns"] = {{"p50", r.latency->p50},   {"p90", r.latency->p90},
                           {"p99", r.latency->p99},   {"p999", r.latency->p999},
                           {"max", r.latency->max},   {"mean", r.latency->mean},
                           {"samples", r.latency->samples}, {"kind", "round_trip"}};
    }
    j["integrity"] = {{"messages_sent", r.integrity.messages_sent},
                      {"messages_received", r.integrity.messages_received},
                      {"lost", r.integrity.lost},
                      {"out_of_order", r.integrity.out_of_order},
                      {"duplicated", r.integrity.duplicated}};
    j["sender"] = process_json(r.sender);
    j["receiver"] = process_json(r.receiver);
    return j;
}

}  // namespace

nlohmann::json to_json(const run_report &report) {
    const auto &env = report.environment;
    nlohmann::json results = nlohmann::json::array();
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
              {"hostname", env.hostname}}},
            {"settings",
             {{"duration_s", report.duration_s},
              {"warmup_s", report.warmup_s},
              {"count", report.count},
              {"latency_histogram_relative_error", stats::latency_histogram::relative_error}}},
            {"results", results}};
}

}  // namespace ipcbench::report
