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

// A summed result's streams as rows of numbers (thousands of them fit a frame): the counters,
// then the window, the thread, its CPU and the status; failures separately. A stream's path,
// histogram and the rest of its usage live in the sum.
json stream_rows(const std::vector<loop_result> &streams) {
    json rows = json::array(), errors = json::array();
    for (std::size_t k = 0; k < streams.size(); ++k) {
        const loop_result &s = streams[k];
        json row = json::array();
        for (const auto &c : counters) row.push_back(s.*c.member);
        row.insert(row.end(), {json(s.first_ns), json(s.end_ns), json(s.thread_id),
                               json(s.usage.cpu_user_s), json(s.usage.cpu_sys_s), json(s.status)});
        rows.push_back(std::move(row));
        if (s.failed()) errors.push_back({{"stream", k}, {"error", s.error}});
    }
    return {{"rows", rows}, {"errors", errors}};
}

constexpr std::size_t row_width = std::size(counters) + 6;

std::vector<loop_result> streams_from(const json_fields &f, job_kind part) {
    const json_fields table(f.at("streams"), "streams");
    const auto &rows = table.at("rows");
    if (!rows.is_array() || rows.size() > max_streams)
        throw table.fail("rows", "must be a list of at most " + std::to_string(max_streams));
    std::vector<loop_result> out(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const json &row = rows[k];
        if (!row.is_array() || row.size() != row_width)
            throw table.fail("rows",
                             "each row must list " + std::to_string(row_width) + " numbers");
        loop_result &s = out[k];
        s.part = part;
        auto whole = [&](std::size_t i, std::int64_t low, std::int64_t high) {
            if (!row[i].is_number_integer() || row[i].get<std::int64_t>() < low ||
                row[i].get<std::int64_t>() > high)
                throw table.fail("rows", "entry " + std::to_string(i) + " of row " +
                                             std::to_string(k) + " is not a whole number in range");
            return row[i].get<std::int64_t>();
        };
        std::size_t i = 0;
        for (const auto &c : counters) {
            if (!row[i].is_number_unsigned())
                throw table.fail("rows", "counter " + std::string(c.name) + " of row " +
                                             std::to_string(k) + " is not a count");
            s.*c.member = row[i++].get<std::uint64_t>();
        }
        s.first_ns = whole(i++, 0, INT64_MAX);
        s.end_ns = whole(i++, 0, INT64_MAX);
        s.thread_id = whole(i++, 0, INT64_MAX);
        for (double *cpu : {&s.usage.cpu_user_s, &s.usage.cpu_sys_s}) {
            if (!row[i].is_number() || row[i].get<double>() < 0 || row[i].get<double>() > 1e9)
                throw table.fail("rows",
                                 "CPU seconds in row " + std::to_string(k) + " out of range");
            *cpu = row[i++].get<double>();
        }
        s.status = static_cast<int>(whole(i, INT32_MIN, INT32_MAX));
    }
    const auto &errors = table.at("errors");
    if (!errors.is_array() || errors.size() > out.size())
        throw table.fail("errors", "must be a list of at most one error per stream");
    for (const auto &e : errors) {
        const json_fields ef(e, "stream error");
        const auto k = ef.unsigned_integer("stream", 0, out.empty() ? 0 : out.size() - 1);
        if (out.empty()) throw table.fail("errors", "names a stream that is not there");
        out[k].error = ef.text("error", std::size_t{64} * 1024);
    }
    return out;
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
    out["streams"] = stream_rows(r.streams);
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
    r.streams = streams_from(f, r.part);
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
