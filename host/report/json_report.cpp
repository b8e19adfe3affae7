#include "report/json_report.hpp"

#include "report/condition_checks.hpp"

#include <fmt/chrono.h>
#include <ctime>
#include <stdexcept>

#include "model/units.hpp"

namespace ipcbench::report {
namespace {

// The run's settings as the header writes them: the defaults every case started from.
struct header_settings {
    run_report &r;
};

}  // namespace
}  // namespace ipcbench::report

// The header's groups have field lists too (the result's groups are in model/case_result.hpp).
namespace ipcbench::model {

template <class S, class V>
auto figure_fields(S &e, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, platform::system_info>> {
    v("os", e.os, false);
    v("kernel", e.kernel, false);
    v("machine", e.machine, false);
    v("cpu_model", e.cpu_model, false);
    v("cpu_governor", e.governor, false);
    v("cores", e.cores, false);
    v("hostname", e.hostname, false);
    v("load_average_1m", e.load_average_1m, false);
}

template <class S, class V>
auto figure_fields(S &h, V &&v)
    -> std::enable_if_t<std::is_same_v<std::remove_const_t<S>, report::header_settings>> {
    v("duration_s", h.r.defaults.duration_s, false);
    v("warmup_s", h.r.defaults.warmup_s, false);
    v("count", h.r.defaults.count, false);
    v("repeat", h.r.repeat, false);
    v("precision", h.r.precision, false);
    v("peer", h.r.peer, false);
    v("from", h.r.from, false);
}

}  // namespace ipcbench::model

namespace ipcbench::report {
namespace {

using nlohmann::json;

// A figure group to JSON and back, by its one field list (model/case_result.hpp). A field is
// a value, a group with its own field list (an object), or an optional group (null when absent).
template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<
    T, std::void_t<decltype(model::figure_fields(std::declval<T &>(), std::declval<void (*)()>()))>>
    : std::true_type {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class S>
json figures_json(const S &figures);

template <class T>
json value_json(const T &field) {
    if constexpr (has_fields<T>::value)
        return figures_json(field);
    else if constexpr (is_optional<T>::value)
        return field ? value_json(*field) : json(nullptr);
    else
        return json(field);
}

struct figure_writer {
    json &out;
    template <class T>
    void operator()(const char *name, const T &field, bool) {
        out[name] = value_json(field);
    }
    template <class F>
    void group(const char *name, F &&fields) {
        json sub = json::object();
        fields(figure_writer{sub});
        out[name] = std::move(sub);
    }
};

template <class S>
json figures_json(const S &figures) {
    json out = json::object();
    model::figure_fields(figures, figure_writer{out});
    return out;
}

template <class S>
S figures_from(const json &in, const std::string &group);

// Type-checked: a result file is untrusted input. A field that is missing but not required
// (added after 1.0) reads as its default.
struct figure_reader {
    const json &in;
    std::string where;  // the group's name in the file, for errors

    template <class T>
    void read(const json &value, const std::string &name, T &field) {
        if constexpr (has_fields<T>::value) {
            field = figures_from<T>(value, name);
        } else if constexpr (is_optional<T>::value) {
            if (value.is_null())
                field.reset();
            else
                read(value, name, field.emplace());
        } else {
            try {
                field = value.get<T>();
            } catch (const json::exception &) {
                throw std::runtime_error("result field '" + name + "' has the wrong type (" +
                                         value.type_name() + ")");
            }
        }
    }
    template <class T>
    void operator()(const char *name, T &field, bool required) {
        const auto it = in.find(name);
        if (it == in.end()) {
            if (required)
                throw std::runtime_error("result field '" + where + "." + name + "' is missing");
            return;
        }
        read(*it, where + "." + name, field);
    }
    template <class F>
    void group(const char *name, F &&fields) {
        const auto it = in.find(name);
        const std::string inner = where + "." + name;
        if (it == in.end() || !it->is_object())
            throw std::runtime_error("result field '" + inner + "' must be an object");
        fields(figure_reader{*it, inner});
    }
};

template <class S>
S figures_from(const json &in, const std::string &group) {
    if (!in.is_object()) throw std::runtime_error("result field '" + group + "' must be an object");
    S figures;
    model::figure_fields(figures, figure_reader{in, group});
    return figures;
}

// Only sides that printed: {"receiver": {"bytes": 4194304, "text": "first 4 KiB..."}}.
json worker_output_json(const case_result &r) {
    json out = json::object();
    for (const auto &[side, printed] : r.worker_output) out[side] = figures_json(printed);
    return out;
}

// An optional group: null or absent reads as none.
template <class S>
std::optional<S> optional_from(const json &j, const std::string &group) {
    if (j.is_null()) return std::nullopt;
    return figures_from<S>(j, group);
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
    json v = figures_json(i);
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
    j["placement"] = value_json(r.placement);
    j["throughput"] = nullptr;
    j["latency_ns"] = nullptr;
    if (r.throughput) {
        json &t = j["throughput"] = figures_json(*r.throughput);
        t["mb_per_sec"] = model::megabytes(r.throughput->bytes_per_sec);  // derived, for reading
        t["mib_per_sec"] = model::mebibytes(r.throughput->bytes_per_sec);
        t["mbit_per_sec"] = model::megabits(r.throughput->bytes_per_sec);
    }
    if (r.latency) j["latency_ns"] = figures_json(*r.latency);
    j["integrity"] = figures_json(r.integrity);
    j["sender"] = figures_json(r.sender);
    j["receiver"] = figures_json(r.receiver);
    if (r.spread) j["stream_spread"] = figures_json(*r.spread);
    if (r.setup) j["setup"] = figures_json(*r.setup);
    json streams = json::array();
    // Thousands of rows only when asked (--per-stream); stream_spread summarises them.
    if (r.per_stream.size() <= per_stream_rows_by_default || per_stream_list)
        for (const auto &s : r.per_stream) streams.push_back(figures_json(s));
    j["per_stream"] = streams;
    json intervals = json::array();
    for (const auto &i : r.intervals) intervals.push_back(interval_to_json(i));
    j["intervals"] = intervals;
    j["repetitions"] = r.repeat_count;
    if (r.totals) {
        j["median_repetition"] = r.median_repetition;
        j["totals"] = figures_json(*r.totals);
    }
    json statistics = json::object();
    for (const auto &[name, entry] : r.statistics) {
        const auto &[s, samples] = entry;
        statistics[name] = figures_json(s);
        statistics[name]["samples"] = samples;
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
            r.worker_output[side] =
                figures_from<model::printed_output>(printed, "worker_output." + side);
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
    r.placement =
        optional_from<placement_figures>(j.value("placement", json(nullptr)), "placement");
    if (j.contains("throughput") && !j["throughput"].is_null())
        r.throughput = figures_from<throughput_figures>(j["throughput"], "throughput");
    if (j.contains("latency_ns") && !j["latency_ns"].is_null())
        r.latency = latency_from(j["latency_ns"]);
    r.integrity = figures_from<integrity_figures>(j.at("integrity"), "integrity");
    if (const auto s = j.find("stream_spread"); s != j.end())
        r.spread = figures_from<stats::stream_spread>(*s, "stream_spread");
    if (const auto s = j.find("setup"); s != j.end())
        r.setup = figures_from<setup_figures>(*s, "setup");
    r.sender = figures_from<process_figures>(j.at("sender"), "sender");
    r.receiver = figures_from<process_figures>(j.at("receiver"), "receiver");
    for (const auto &s : j.value("per_stream", json::array()))
        r.per_stream.push_back(figures_from<model::stream_figures>(s, "per_stream"));
    for (const auto &v : j.value("intervals", json::array()))
        r.intervals.push_back(figures_from<interval_figures>(v, "intervals"));
}

case_result result_from(const json &j) {
    case_result r;
    identity_from(j, r);
    r.repeat_count = j.value("repetitions", 1);
    if (!r.ok()) return r;
    result_figures_from(j, r);
    r.median_repetition = j.value("median_repetition", 0);
    if (const auto t = j.find("totals"); t != j.end())
        r.totals = figures_from<repetition_totals>(*t, "totals");
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
    // The writer only reads the fields (one list for both ways needs a non-const view).
    const header_settings fields{const_cast<run_report &>(report)};  // NOLINT
    json settings = figures_json(fields);
    settings["latency_histogram_relative_error"] = stats::latency_histogram::relative_error;
    json header = {{"schema_version", json_schema_version},
                   {"ipcbench_version", IPCBENCH_VERSION},
                   {"started_at", report.started_at},
                   {"command_line", report.command_line},
                   {"environment", figures_json(report.environment)},
                   {"conditions", conditions_json(report.conditions)},
                   {"settings", std::move(settings)}};
    if (!report.labels.empty()) header["labels"] = report.labels;
    return header;
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
    if (const auto labels = doc.find("labels"); labels != doc.end() && labels->is_object())
        for (const auto &[key, value] : labels->items())  // a string each, else left out
            if (value.is_string() && report.labels.size() < 32)
                report.labels[key] = value.get<std::string>();
    report.environment = figures_from<platform::system_info>(
        doc.value("environment", json::object()), "environment");
    if (doc.contains("conditions")) report.conditions = conditions_from_json(doc["conditions"]);
    header_settings fields{report};
    const json settings = doc.value("settings", json::object());
    model::figure_fields(fields, figure_reader{settings, "settings"});
    for (const auto &r : doc.at("results")) report.results.push_back(result_from(r));
    return report;
}

}  // namespace ipcbench::report
