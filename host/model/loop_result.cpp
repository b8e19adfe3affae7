#include "model/loop_result.hpp"

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "model/json_fields.hpp"

namespace ipcbench::model {
namespace {

using nlohmann::json;

// The counters, by name: summed over streams, written and read with the same names.
struct counter {
    const char *name;
    std::uint64_t loop_result::*member;
};
const counter counters[] = {
    {"warmup_messages", &loop_result::warmup_messages},
    {"messages_sent", &loop_result::messages_sent},
    {"bytes_sent", &loop_result::bytes_sent},
    {"messages_received", &loop_result::messages_received},
    {"bytes_received", &loop_result::bytes_received},
    {"counted_messages", &loop_result::counted_messages},
    {"duplicates", &loop_result::duplicates},
    {"out_of_order", &loop_result::out_of_order},
    {"beyond_window", &loop_result::beyond_window},
    {"corrupted", &loop_result::corrupted},
    {"pings_sent", &loop_result::pings_sent},
    {"round_trips", &loop_result::round_trips},
    {"lost", &loop_result::lost},
    {"mismatched", &loop_result::mismatched},
    {"stale_pongs", &loop_result::stale_pongs},
    {"echoed", &loop_result::echoed},
};

// A loop plays one part: a bidir job runs a send and a receive loop per stream.
std::optional<job_kind> part_from(const std::string &name) {
    auto kind = job_kind_from(name);
    return kind == job_kind::bidir ? std::nullopt : kind;
}

json usage_json(const platform::resource_usage &u) {
    return {{"cpu_user_s", u.cpu_user_s},
            {"cpu_sys_s", u.cpu_sys_s},
            {"max_rss_kib", u.max_rss_kib},
            {"voluntary_ctx_switches", u.voluntary_ctx_switches},
            {"involuntary_ctx_switches", u.involuntary_ctx_switches},
            {"cpus_seen", u.cpus_seen}};
}

platform::resource_usage usage_from(const json &in) {
    const json_fields f(in, "usage");
    platform::resource_usage u;
    u.cpu_user_s = f.number("cpu_user_s", 0, 1e9);
    u.cpu_sys_s = f.number("cpu_sys_s", 0, 1e9);
    u.max_rss_kib = f.integer("max_rss_kib", 0, INT64_MAX);
    u.voluntary_ctx_switches = f.integer("voluntary_ctx_switches", 0, INT64_MAX);
    u.involuntary_ctx_switches = f.integer("involuntary_ctx_switches", 0, INT64_MAX);
    u.cpus_seen = f.unsigned_integer("cpus_seen", 0, UINT64_MAX);
    return u;
}

}  // namespace

double loop_result::window_s() const {
    return end_ns > first_ns && first_ns > 0 ? static_cast<double>(end_ns - first_ns) / 1e9 : 0;
}

loop_result sum_streams(job_kind part, std::vector<loop_result> streams) {
    loop_result sum;
    sum.part = part;
    std::int64_t first = INT64_MAX;
    for (std::size_t k = 0; k < streams.size(); ++k) {
        const loop_result &s = streams[k];
        for (const auto &c : counters) sum.*c.member += s.*c.member;
        if (sum.path.empty()) sum.path = s.path;
        if (sum.ended_by.empty()) sum.ended_by = s.ended_by;
        if (s.failed() && !sum.failed()) {
            sum.error = s.error + (streams.size() > 1 ? " (stream " + std::to_string(k) + ")" : "");
            sum.status = s.status;
        }
        platform::accumulate(sum.usage, s.usage);
        if (s.first_ns > 0) first = std::min(first, s.first_ns);
        sum.end_ns = std::max(sum.end_ns, s.end_ns);
        if (s.histogram) {
            if (!sum.histogram) sum.histogram.emplace();
            sum.histogram->merge(*s.histogram);
        }
    }
    sum.first_ns = first == INT64_MAX ? 0 : first;
    sum.streams = std::move(streams);
    return sum;
}

const loop_result &worker_result::part(job_kind k) const {
    for (const auto &p : parts)
        if (p.part == k) return p;
    throw std::invalid_argument(std::string("the worker's result has no '") + to_string(k) +
                                "' part");
}

void to_json(json &out, const loop_result &r) {
    out = json::object();
    out["part"] = to_string(r.part);
    for (const auto &c : counters) out[c.name] = r.*c.member;
    out["ended_by"] = r.ended_by;
    out["first_ns"] = r.first_ns;
    out["end_ns"] = r.end_ns;
    out["path"] = r.path;
    out["usage"] = usage_json(r.usage);
    out["histogram"] = r.histogram ? r.histogram->to_json() : json(nullptr);
    out["thread_id"] = r.thread_id;
    out["error"] = r.error;
    out["status"] = r.status;
    out["streams"] = r.streams;
}

void from_json(const json &in, loop_result &r) {
    const json_fields f(in, "loop result");
    r.part = f.named("part", part_from);
    for (const auto &c : counters) r.*c.member = f.unsigned_integer(c.name, 0, UINT64_MAX);
    r.ended_by = f.text("ended_by", 32);
    r.first_ns = f.integer("first_ns", 0, INT64_MAX);
    r.end_ns = f.integer("end_ns", 0, INT64_MAX);
    r.path = f.text("path", 200);
    r.usage = usage_from(f.at("usage"));
    if (const auto &h = f.at("histogram"); !h.is_null())
        r.histogram = stats::latency_histogram::from_json(h);
    r.thread_id = f.integer("thread_id", 0, INT64_MAX);
    r.error = f.text("error", std::size_t{64} * 1024);
    r.status = static_cast<int>(f.integer("status", INT32_MIN, INT32_MAX));
    const auto &streams = f.at("streams");
    if (!streams.is_array() || streams.size() > max_streams)
        throw f.fail("streams", "must be a list of at most " + std::to_string(max_streams));
    r.streams.clear();
    for (const auto &s : streams) {
        r.streams.push_back(s.get<loop_result>());
        if (!r.streams.back().streams.empty())
            throw f.fail("streams", "must not nest: a stream has no streams of its own");
    }
}

// A failed part also fails the whole answer ("error" on top), so the pair ends the case at once.
void to_json(json &out, const worker_result &r) {
    out = {{"parts", r.parts}};
    for (const auto &p : r.parts)
        if (p.failed()) {
            out["error"] = p.error;
            out["status"] = p.status;
            break;
        }
}

void from_json(const json &in, worker_result &r) {
    const json_fields f(in, "worker result");
    const auto &parts = f.at("parts");
    if (!parts.is_array() || parts.empty() || parts.size() > 2)
        throw f.fail("parts", "must be a list of one or two parts");
    r.parts = parts.get<std::vector<loop_result>>();
}

}  // namespace ipcbench::model
