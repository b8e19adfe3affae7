#include "model/case_result.hpp"

namespace ipcbench::model {
namespace {

const char *const status_names[] = {"ok", "failed", "skipped", "interrupted"};

}  // namespace

const char *to_string(case_status s) {
    return status_names[static_cast<int>(s)];
}

std::optional<case_status> case_status_from(const std::string &name) {
    for (int i = 0; i < 4; ++i)
        if (name == status_names[i]) return static_cast<case_status>(i);
    return std::nullopt;
}

std::map<std::string, double> comparable_figures(const case_result &r) {
    std::map<std::string, double> f;
    if (r.throughput) {
        f["bytes_per_sec"] = r.throughput->bytes_per_sec;
        f["messages_per_sec"] = r.throughput->messages_per_sec;
    }
    if (r.latency) {
        f["latency_p50_ns"] = static_cast<double>(r.latency->p50);
        f["latency_p99_ns"] = static_cast<double>(r.latency->p99);
        f["latency_p999_ns"] = static_cast<double>(r.latency->p999);
        f["latency_mean_ns"] = r.latency->mean;
    }
    f["sender_cpu_percent"] = r.sender.cpu_percent;
    f["receiver_cpu_percent"] = r.receiver.cpu_percent;
    f["sender_cpu_us_per_message"] = r.sender.cpu_us_per_message;
    f["receiver_cpu_us_per_message"] = r.receiver.cpu_us_per_message;
    return f;
}

bool higher_is_better(const std::string &figure) {
    return figure == "bytes_per_sec" || figure == "messages_per_sec";
}

}  // namespace ipcbench::model
