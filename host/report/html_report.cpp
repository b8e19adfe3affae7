#include "report/html_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "model/units.hpp"
#include "report/condition_checks.hpp"
#include "report/fleet_heatmap.hpp"
#include "report/impl_grid.hpp"
#include "report/result_columns.hpp"
#include "report/svg_chart.hpp"
#include "report/warning_groups.hpp"

namespace ipcbench::report {
namespace {

// A series' label: all that tells its results from another series' (the transport, who ran
// each side and on what runtime, the fleet pair, the direction, the streams).
std::string series_key(const case_result &r) {
    std::string key = r.settings.transport_id;
    const auto &s = r.sender, &v = r.receiver;
    if (s.implementation != "native" || v.implementation != "native") {
        auto who = [](const model::process_figures &p) {
            return p.runtime.empty() || p.implementation == "native"
                       ? p.implementation
                       : fmt::format("{} ({})", p.implementation, p.runtime);
        };
        key += fmt::format(" [{} -> {}]", who(s), who(v));
    }
    if (r.fleet) key += fmt::format(" {} -> {}", r.fleet->source, r.fleet->destination);
    if (r.direction != model::traffic_direction::forward || r.bidir())
        key += std::string(" ") + model::to_string(r.direction);
    if (r.settings.streams > 1) key += fmt::format(" x{}", r.settings.streams);
    return key;
}

std::string table_html(const std::vector<std::pair<std::string, const column *>> &columns,
                       const std::vector<const case_result *> &rows) {
    std::string out = "<table><thead><tr>";
    for (const auto &c : columns) out += "<th>" + html_escape(c.first) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (const auto *r : rows) {
        out += "<tr>";
        for (const auto &c : columns) out += "<td>" + html_escape(c.second->text(*r)) + "</td>";
        out += "</tr>\n";
    }
    return out + "</tbody></table>\n";
}

// The series of the page's charts, and the results of each table.
struct page_data {
    std::map<std::string, chart_series> mbps, msgs;
    std::vector<chart_series> percentiles;
    std::vector<std::pair<std::string, double>> cpu;
    std::vector<const case_result *> tp, lat, bad;
};

page_data collect(const run_report &report) {
    page_data d;
    for (const auto &r : report.results) {
        if (!r.ok()) {
            d.bad.push_back(&r);
            continue;
        }
        const std::string size = format_size(r.settings.size_bytes);
        if (is_throughput(r)) {
            d.tp.push_back(&r);
            const std::string key = series_key(r);
            d.mbps[key].name = d.msgs[key].name = key;
            const double x = static_cast<double>(r.settings.size_bytes);
            d.mbps[key].points.emplace_back(x, model::megabytes(r.throughput->bytes_per_sec));
            d.msgs[key].points.emplace_back(x, r.throughput->messages_per_sec);
            d.cpu.emplace_back(fmt::format("{} {}", key, size),
                               r.sender.cpu_us_per_mb + r.receiver.cpu_us_per_mb);
        }
        if (is_latency(r)) {
            d.lat.push_back(&r);
            const auto &l = *r.latency;
            d.percentiles.push_back({fmt::format("{} {}", series_key(r), size),
                                     {{0, l.p50 / 1e3},
                                      {1, l.p90 / 1e3},
                                      {2, l.p99 / 1e3},
                                      {3, l.p999 / 1e3},
                                      {4, l.p9999 / 1e3},
                                      {5, l.max / 1e3}}});
        }
    }
    return d;
}

std::vector<chart_series> sorted_series(std::map<std::string, chart_series> &m) {
    std::vector<chart_series> v;
    for (auto &[k, s] : m) {
        std::sort(s.points.begin(), s.points.end());
        v.push_back(s);
    }
    return v;
}

std::string page_head(const run_report &report) {
    const auto &env = report.environment;
    return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>ipcbench report {}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.15em; margin-top: 2em; }}
.chart {{ display: block; margin: 1em 0; background: #fff; border: 1px solid #ddd; }}
.chart .title {{ font-size: 15px; font-weight: bold; }}
.chart .tick, .chart .legend {{ font-size: 11px; fill: #333; }}
.chart .label {{ font-size: 12px; fill: #333; }}
.chart .grid {{ stroke: #e4e4e4; }}
table {{ border-collapse: collapse; font-size: 12px; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
table.grid td.baseline {{ outline: 2px solid #555; }}
table.heatmap td.outlier {{ outline: 3px solid #c00; outline-offset: -3px; }}
table.heatmap td.failed {{ background: #eee; color: #900; }}
</style></head><body>
<h1>ipcbench {} on {} {} ({}, {} cores), {}</h1>
<p>Command: <code>{}</code>. MB = 10<sup>6</sup> bytes. Latency percentiles are within {:.1f}%
of the recorded values.</p>
)",
                       html_escape(report.started_at), IPCBENCH_VERSION, html_escape(env.os),
                       html_escape(env.kernel), html_escape(env.cpu_model), env.cores,
                       html_escape(report.started_at), html_escape(report.command_line),
                       stats::latency_histogram::relative_error * 100);
}

// What the table says under its tables: what on the machine may have moved the figures over the
// run (ipchost system's noise sources), and each kind of warning with the cases it covers.
std::string warnings_html(const run_report &report) {
    std::string out;
    std::string noted;
    for (const auto &note : condition_notes(report.conditions))
        noted += (noted.empty() ? "" : ", ") + note;
    if (!noted.empty())
        out += fmt::format(
            "<p>Over this run, what may have moved its figures: {} (ipchost system "
            "says what to change)</p>\n",
            html_escape(noted));
    std::vector<const case_result *> warned;
    for (const auto &r : report.results)
        if (!r.warnings.empty()) warned.push_back(&r);
    if (warned.empty()) return out;
    out += "<h2>Warnings</h2>\n<ul>\n";
    for (const auto &group : group_warnings(warned)) {
        std::string cases;
        for (const auto &c : group.cases) cases += (cases.empty() ? "" : ", ") + c;
        out += fmt::format("<li>{} ({})</li>\n", html_escape(group.text), html_escape(cases));
    }
    return out + "</ul>\n";
}

}  // namespace

std::string to_html(const run_report &report) {
    page_data d = collect(report);
    std::string html = page_head(report);
    html += "<h2>Throughput</h2>\n";
    html += svg_line_chart(
        {"Throughput vs message size", "message size (bytes)", "MB/s", true, true, {}},
        sorted_series(d.mbps));
    html += svg_line_chart({"Messages per second vs message size",
                            "message size (bytes)",
                            "messages/s",
                            true,
                            true,
                            {}},
                           sorted_series(d.msgs));
    html += svg_bar_chart("CPU per MB moved, sender + receiver", "CPU microseconds per MB", d.cpu);
    if (!d.tp.empty()) html += table_html(table_columns(report, table_kind::throughput), d.tp);
    html += "<h2>Latency</h2>\n";
    html += svg_line_chart({"Round-trip latency percentiles",
                            "percentile",
                            "microseconds",
                            false,
                            true,
                            {"p50", "p90", "p99", "p99.9", "p99.99", "max"}},
                           d.percentiles);
    if (!d.lat.empty()) html += table_html(table_columns(report, table_kind::latency), d.lat);
    html += grids_html(impl_grids(report));
    html += heatmaps_html(fleet_heatmaps(report));
    html += warnings_html(report);
    if (!d.bad.empty()) {
        html += "<h2>Not measured</h2>\n<ul>\n";
        for (const auto *r : d.bad)
            html +=
                fmt::format("<li>{} {} {}: {}: {}</li>\n", html_escape(r->settings.transport_id),
                            format_size(r->settings.size_bytes), model::to_string(r->settings.mode),
                            to_string(r->status), html_escape(r->error));
        html += "</ul>\n";
    }
    return html + "</body></html>\n";
}

}  // namespace ipcbench::report
