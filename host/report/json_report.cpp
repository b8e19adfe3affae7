#include "report/json_report.hpp"

#include <fmt/chrono.h>
#include <ctime>
#include <stdexcept>

#include "model/units.hpp"

namespace ipcbench::report {
namespace {

using nlohmann::json;

// A figure group to JSON and back, by its one field list (model/case_result.hpp).
struct figure_writer {
    json &out;
    template <class T>
    void operator()(const char *name, const T &field, bool) {
        out[name] = field;
    }
};

// Type-checked: a result file is untrusted input. A field that is missing but not required
// (added after 1.0) reads as its default.
struct figure_reader {
    const json &in;
    const char *group;
    template <class T>
    void operator()(const char *name, T &field, bool required) {
        const auto it = in.find(name);
        if (it == in.end()) {
            if (required)
                throw std::runtime_error(std::string("result field '") + group + "." + name +
                                         "' is missing");
            return;
        }
        try {
            field = it->get<T>();
        } catch (const json::exception &) {
            throw std::runtime_error(std::string("result field '") + group + "." + name +
                                     "' has the wrong type (" + it->type_name() + ")");
        }
    }
};

template <class S>
json figures_json(const S &figures) {
    json out = json::object();
    model::figure_fields(figures, figure_writer{out});
    return out;
}

template <class S>
S figures_from(const json &in, const char *group) {
    if (!in.is_object())
        throw std::runtime_error(std::string("result field '") + group + "' must be an object");
    S figures;
    model::figure_fields(figures, figure_reader{in, group});
    return figures;
}

// Only sides that printed: {"receiver": {"bytes": 4194304, "text": "first 4 KiB..."}}.
json worker_output_json(const case_result &r) {
    json out = json::object();
    for (const auto &[side, printed] : r.worker_output)
        out[side] = {{"bytes", printed.bytes}, {"text", printed.text}};
    return out;
}

json placement_json(const std::optional<placement_figures> &p) {
    return p ? figures_json(*p) : json(nullptr);
}

std::optional<placement_figures> placement_from(const json &j) {
    if (j.is_null()) return std::nullopt;
    return figures_from<placement_figures>(j, "placement");
}

json integrity_json(const integrity_figures &i) {
    return figures_json(i);
}

integrity_figures integrity_from(const json &i) {
    return figures_from<integrity_figures>(i, "integrity");
}

// What every result says of itself, measured or not.
json identity_json(const case_result &r) {
    const auto &c = r.settings;
    json j = {{"plugin", r.plugin},
              {"transport", c.transport_id},
              {"mode", model::to_string(c.mode)},
              {"direction", model::to_string(r.direction)},
              {"bidir", r.bidir()},
              {"message_size", c.size_bytes},
              {"streams", c.streams},
              {"io", model::to_string(c.io)},
              {"threads", c.threads},
              {"rate", c.rate_per_s},
              {"batch", c.batch},
              {"status", to_string(r.status)},
              {"warnings", r.warnings},
              {"settings", c}};
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.worker_output.empty()) j["worker_output"] = worker_output_json(r);
    if (r.fleet) j["fleet"] = figures_json(*r.fleet);
    return j;
}

}  // namespace

json interval_to_json(const interval_figures &i) {
    json v = i;
    v["mb_per_sec"] = model::megabytes(model::per_second(static_cast<double>(i.bytes), i.seconds));
    return v;
}

namespace {

// Cases with more streams list each one only when asked (--per-stream).
constexpr std::size_t per_stream_rows_by_default = 64;

json result_json(const case_result &r, bool per_stream_list) {
    json j = identity_json(r);
    if (!r.ok()) return j;
    j["data_path"] = r.data_path;
    j["duration_s"] = r.duration_s;
    j["options"] = r.options;
    j["placement"] = placement_json(r.placement);
    j["throughput"] = nullptr;
    j["latency_ns"] = nullptr;
    if (r.throughput) {
        json &t = j["throughput"] = figures_json(*r.throughput);
        t["mb_per_sec"] = model::megabytes(r.throughput->bytes_per_sec);  // derived, for reading
        t["mib_per_sec"] = model::mebibytes(r.throughput->bytes_per_sec);
        t["mbit_per_sec"] = model::megabits(r.throughput->bytes_per_sec);
    }
    if (r.latency) j["latency_ns"] = figures_json(*r.latency);
    j["integrity"] = integrity_json(r.integrity);
    j["sender"] = figures_json(r.sender);
    j["receiver"] = figures_json(r.receiver);
    if (r.spread)
        j["stream_spread"] = {{"streams", r.spread->n},
                              {"bytes_per_sec",
                               {{"min", r.spread->min},
                                {"p50", r.spread->p50},
                                {"p99", r.spread->p99},
                                {"max", r.spread->max}}},
                              {"jain_fairness", r.spread->jain}};
    if (r.setup)
        j["setup"] = {
            {"connections", r.setup->connections},
            {"seconds", r.setup->seconds},
            {"per_second", r.setup->per_second},
            {"latency_ns",
             {{"p50", r.setup->p50_ns}, {"p99", r.setup->p99_ns}, {"max", r.setup->max_ns}}}};
    json streams = json::array();
    // Thousands of rows only when asked (--per-stream); stream_spread summarises them.
    if (r.per_stream.size() <= per_stream_rows_by_default || per_stream_list)
        for (const auto &s : r.per_stream)
            streams.push_back({{"messages", s.messages},
                               {"messages_per_sec", s.messages_per_sec},
                               {"bytes_per_sec", s.bytes_per_sec},
                               {"lost", s.lost},
                               {"placement", placement_json(s.placement)}});
    j["per_stream"] = streams;
    json intervals = json::array();
    for (const auto &i : r.intervals) intervals.push_back(interval_to_json(i));
    j["intervals"] = intervals;
    j["repetitions"] = r.repeat_count;
    if (r.totals) {
        j["median_repetition"] = r.median_repetition;
        j["totals"] = {{"duration_s", r.totals->duration_s},
                       {"integrity", integrity_json(r.totals->integrity)},
                       {"latency_samples", r.totals->latency_samples}};
    }
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

template <class Enum>
Enum enum_from(const json &j, const char *key, std::optional<Enum> (*parse)(const std::string &)) {
    const std::string name = j.at(key).get<std::string>();
    if (auto value = parse(name)) return *value;
    throw std::runtime_error(std::string("result field '") + key + "' has the unknown value '" +
                             name + "'");
}

// The fields of a result's row that are settings. Files written before results carried
// "settings" (the case_settings field list, as on the control channel) have only these; the
// rest stay the run's.
void flat_settings_from(const json &j, case_result &r) {
    auto &c = r.settings;
    c.transport_id = j.at("transport");
    c.mode = enum_from(j, "mode", model::measure_mode_from);
    c.direction = j.value("bidir", false) ? model::traffic_direction::bidir : r.direction;
    c.size_bytes = j.at("message_size");
    c.streams = j.value("streams", 1);
    if (const auto io = model::io_engine_from(j.value("io", "threads"))) c.io = *io;
    c.threads = j.value("threads", 0);
    c.rate_per_s = j.value("rate", 0.0);
    c.batch = j.value("batch", 1);
}

void identity_from(const json &j, case_result &r) {
    r.plugin = j.at("plugin");
    r.direction = j.contains("direction") ? enum_from(j, "direction", model::traffic_direction_from)
                                          : model::traffic_direction::forward;
    // Every setting from "settings", checked by name; the row's own fields (what tables and
    // older readers use, written from the same settings) are checked too and stand for theirs.
    if (const auto settings = j.find("settings"); settings != j.end())
        r.settings = settings->get<model::case_settings>();
    flat_settings_from(j, r);
    r.status = enum_from(j, "status", case_status_from);
    r.error = j.value("error", "");
    r.warnings = j.value("warnings", std::vector<std::string>{});
    if (const auto fleet = j.find("fleet"); fleet != j.end())
        r.fleet = figures_from<fleet_place>(*fleet, "fleet");
    if (const auto printed_by = j.find("worker_output"); printed_by != j.end())
        for (const auto &[side, printed] : printed_by->items())
            r.worker_output[side] = {printed.at("bytes").get<std::uint64_t>(),
                                     printed.at("text").get<std::string>()};
}

latency_figures latency_from(const json &l) {
    latency_figures f = figures_from<latency_figures>(l, "latency_ns");
    if (!l.contains("p9999")) f.p9999 = f.p999;  // before 1.1: the tail ended at p99.9
    if (f.kind.empty()) f.kind = "round_trip";
    return f;
}

void result_figures_from(const json &j, case_result &r) {
    r.data_path = j.value("data_path", "");
    r.duration_s = j.value("duration_s", 0.0);
    r.options = j.value("options", std::map<std::string, std::string>{});
    r.placement = placement_from(j.value("placement", json(nullptr)));
    if (j.contains("throughput") && !j["throughput"].is_null())
        r.throughput = figures_from<throughput_figures>(j["throughput"], "throughput");
    if (j.contains("latency_ns") && !j["latency_ns"].is_null())
        r.latency = latency_from(j["latency_ns"]);
    r.integrity = integrity_from(j.at("integrity"));
    if (const auto s = j.find("stream_spread"); s != j.end()) {
        const auto &b = s->at("bytes_per_sec");
        r.spread = stats::stream_spread{s->at("streams"), b.at("min"), b.at("p50"),
                                        b.at("p99"),      b.at("max"), s->at("jain_fairness")};
    }
    if (const auto s = j.find("setup"); s != j.end()) {
        const auto &l = s->at("latency_ns");
        r.setup = setup_figures{s->at("connections"), s->at("seconds"), s->at("per_second"),
                                l.at("p50"),          l.at("p99"),      l.at("max")};
    }
    r.sender = figures_from<process_figures>(j.at("sender"), "sender");
    r.receiver = figures_from<process_figures>(j.at("receiver"), "receiver");
    for (const auto &s : j.value("per_stream", json::array()))
        r.per_stream.push_back({s.value("messages", std::uint64_t{0}),
                                s.value("messages_per_sec", 0.0), s.value("bytes_per_sec", 0.0),
                                s.value("lost", std::uint64_t{0}),
                                placement_from(s.value("placement", json(nullptr)))});
    for (const auto &v : j.value("intervals", json::array()))
        r.intervals.push_back(
            {v.value("end_s", 0.0), v.value("seconds", 0.0), v.value("messages", std::uint64_t{0}),
             v.value("bytes", std::uint64_t{0}), v.value("lost", std::uint64_t{0})});
}

case_result result_from(const json &j) {
    case_result r;
    identity_from(j, r);
    r.repeat_count = j.value("repetitions", 1);
    if (!r.ok()) return r;
    result_figures_from(j, r);
    r.median_repetition = j.value("median_repetition", 0);
    if (const auto t = j.find("totals"); t != j.end())
        r.totals = repetition_totals{t->at("duration_s"), integrity_from(t->at("integrity")),
                                     t->at("latency_samples")};
    const json statistics = j.value("statistics", json::object());
    for (const auto &[name, s] : statistics.items()) {
        auto samples = s.value("samples", std::vector<double>{});
        r.statistics[name] = {stats::summarize(samples), samples};
    }
    if (j.contains("histogram")) r.histogram = stats::latency_histogram::from_json(j["histogram"]);
    return r;
}

}  // namespace

json result_to_json(const case_result &r, bool per_stream_list) {
    return result_json(r, per_stream_list);
}

std::string utc_now() {
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

json to_json(const run_report &report) {
    json doc = header_json(report);
    json results = json::array();
    for (const auto &r : report.results) results.push_back(result_json(r, report.per_stream_list));
    doc["results"] = std::move(results);
    return doc;
}

json header_json(const run_report &report) {
    const auto &env = report.environment;
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
             {{"duration_s", report.defaults.duration_s},
              {"warmup_s", report.defaults.warmup_s},
              {"count", report.defaults.count},
              {"repeat", report.repeat},
              {"peer", report.peer},
              {"from", report.from},
              {"latency_histogram_relative_error", stats::latency_histogram::relative_error}}}};
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
    report.defaults.duration_s = settings.value("duration_s", 0.0);
    report.defaults.warmup_s = settings.value("warmup_s", 0.0);
    report.defaults.count = settings.value("count", std::uint64_t{0});
    report.repeat = settings.value("repeat", 1);
    report.peer = settings.value("peer", "");
    report.from = settings.value("from", "");
    for (const auto &r : doc.at("results")) report.results.push_back(result_from(r));
    return report;
}

}  // namespace ipcbench::report
