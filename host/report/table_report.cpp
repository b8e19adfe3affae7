#include "report/table_report.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace ipcbench::report {
namespace {

std::string render(const std::vector<std::pair<std::string, const column *>> &columns,
                   const std::vector<const case_result *> &rows, bool markdown) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> width;
    width.reserve(columns.size());
    for (const auto &c : columns) width.push_back(c.first.size());
    for (const auto *r : rows) {
        cells.emplace_back();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            cells.back().push_back(columns[i].second->text(*r));
            width[i] = std::max(width[i], cells.back().back().size());
        }
    }
    std::string out;
    auto line = [&](const std::vector<std::string> &values) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (markdown) out += "| ";
            // The first column (transport) left-aligned, figures right-aligned.
            out += i == 0 ? fmt::format("{:<{}}", values[i], width[i])
                          : fmt::format("{:>{}}", values[i], width[i]);
            out += markdown ? " " : "  ";
        }
        if (markdown) out += "|";
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += "\n";
    };
    std::vector<std::string> headers;
    headers.reserve(columns.size());
    for (const auto &c : columns) headers.push_back(c.first);
    line(headers);
    if (markdown) {
        for (std::size_t i = 0; i < columns.size(); ++i)
            out += "|" + std::string(width[i] + 1, '-') + (i == 0 ? "-" : ":");
        out += "|\n";
    }
    for (const auto &row : cells) line(row);
    return out;
}

}  // namespace

std::string to_table(const run_report &report, bool markdown) {
    const auto &env = report.environment;
    const std::string heading = markdown ? "### " : "";
    std::string out = fmt::format("{}ipcbench {} on {} {} ({}, {} cores, load {:.2f}), {}\n",
                                  markdown ? "## " : "", IPCBENCH_VERSION, env.os, env.kernel,
                                  env.cpu_model.empty() ? "?" : env.cpu_model, env.cores,
                                  env.load_average_1m, report.started_at);
    std::vector<const case_result *> tp, lat, bad, warned;
    for (const auto &r : report.results) {
        if (is_throughput(r)) tp.push_back(&r);
        if (is_latency(r)) lat.push_back(&r);
        if (!r.ok()) bad.push_back(&r);
        if (!r.warnings.empty()) warned.push_back(&r);
    }
    const auto &d = report.defaults;
    const std::string how =
        d.count ? fmt::format("{} messages per stream and case", d.count)
                : fmt::format("{:g} s per case after {:g} s warm-up", d.duration_s, d.warmup_s);
    const std::string repeats =
        report.repeat > 1
            ? fmt::format(", the median of {} repetitions (cv: their spread)", report.repeat)
            : "";
    if (!tp.empty()) {
        out += fmt::format(
            "\n{}Throughput: one-way, {}{}; MB = 10^6 B; total ms = first to last message; CPU % "
            "of one core\n{}",
            heading, how, repeats, markdown ? "\n" : "");
        out += render(table_columns(report, table_kind::throughput), tp, markdown);
    }
    if (!lat.empty()) {
        out += fmt::format(
            "\n{}Latency: round trip (ping-pong), microseconds{}; the pinger sends each message "
            "and "
            "times its round trip, the ponger answers it; CPU % of one core\n{}",
            heading, repeats, markdown ? "\n" : "");
        out += render(table_columns(report, table_kind::latency), lat, markdown);
    }
    if (!warned.empty()) {
        out += fmt::format("\n{}Warnings\n{}", heading, markdown ? "\n" : "");
        for (const auto *r : warned)
            for (const auto &w : r->warnings)
                out += fmt::format("{}{} {} {}: {}\n", markdown ? "- " : "",
                                   r->settings.transport_id, format_size(r->settings.size_bytes),
                                   model::to_string(r->settings.mode), w);
    }
    if (!bad.empty()) {
        out += fmt::format("\n{}Not measured\n{}", heading, markdown ? "\n" : "");
        for (const auto *r : bad)
            out += fmt::format("{}{} {} {}: {}: {}\n", markdown ? "- " : "",
                               r->settings.transport_id, format_size(r->settings.size_bytes),
                               model::to_string(r->settings.mode), to_string(r->status), r->error);
    }
    return out;
}

}  // namespace ipcbench::report
