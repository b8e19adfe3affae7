#include "report/impl_grid.hpp"

#include "text/printable_text.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <tuple>

#include "report/result_columns.hpp"
#include "report/svg_chart.hpp"

namespace ipcbench::report {
namespace {

constexpr const char *native = "native";

std::string writer_of(const case_result &r) {
    return r.ok() && !r.sender.implementation.empty() ? r.sender.implementation
                                                      : r.settings.sender_impl;
}

std::string reader_of(const case_result &r) {
    return r.ok() && !r.receiver.implementation.empty() ? r.receiver.implementation
                                                        : r.settings.receiver_impl;
}

// The figure a grid shows: throughput MB/s, or the round trip's p50 in microseconds.
std::optional<double> figure_of(const case_result &r) {
    if (!r.ok()) return std::nullopt;
    if (r.is(model::measure_mode::latency))
        return r.latency ? std::optional<double>(r.latency->p50 / 1e3) : std::nullopt;
    return r.throughput ? std::optional<double>(r.throughput->bytes_per_sec / 1e6) : std::nullopt;
}

void add_once(std::vector<std::string> &names, const std::string &name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// native first, then as the run met them.
void native_first(std::vector<std::string> &names) {
    std::stable_partition(names.begin(), names.end(),
                          [](const std::string &n) { return n == native; });
}

std::string format_figure(double v) {
    return fmt::format(v >= 100 ? "{:.0f}" : "{:.2f}", v);
}

}  // namespace

std::vector<impl_grid> impl_grids(const run_report &report) {
    using key = std::tuple<std::string, std::uint64_t, int, int, double, int, int>;
    std::map<key, impl_grid> by_case;
    std::vector<key> order;
    for (const auto &r : report.results) {
        const auto &s = r.settings;
        const bool latency = r.is(model::measure_mode::latency);
        const key k{s.transport_id,
                    s.size_bytes,
                    latency ? 1 : 0,
                    s.streams,
                    s.rate_per_s,
                    static_cast<int>(s.batch),
                    static_cast<int>(r.direction)};
        auto [it, fresh] = by_case.try_emplace(k);
        impl_grid &g = it->second;
        if (fresh) {
            order.push_back(k);
            g.higher_is_better = !latency;
            g.title = fmt::format("{} {} {}{}, {}", s.transport_id, format_size(s.size_bytes),
                                  latency ? "latency" : "throughput",
                                  s.streams > 1 ? fmt::format(", {} streams", s.streams) : "",
                                  latency ? "round trip p50 in us" : "MB/s");
        }
        add_once(g.writers, writer_of(r));
        add_once(g.readers, reader_of(r));
        g.cells.emplace(std::make_pair(writer_of(r), reader_of(r)), &r);
    }
    std::vector<impl_grid> out;
    for (const auto &k : order) {
        impl_grid &g = by_case.at(k);
        if (g.cells.size() < 2) continue;
        native_first(g.writers);
        native_first(g.readers);
        out.push_back(std::move(g));
    }
    return out;
}

std::string grid_cell(const impl_grid &g, const std::string &writer, const std::string &reader) {
    const auto it = g.cells.find({writer, reader});
    if (it == g.cells.end()) return "";
    const auto v = figure_of(*it->second);
    if (!v) return "failed";
    const auto base = g.cells.find({native, native});
    const auto b = base == g.cells.end() ? std::nullopt : figure_of(*base->second);
    if (!b || *b <= 0 || it == base) return format_figure(*v);
    return fmt::format("{} ({:.2f})", format_figure(*v), *v / *b);
}

std::string grid_lines(std::vector<std::vector<std::string>> rows, bool markdown) {
    // Names and labels come from result files and agents: no terminal control, no Markdown.
    for (auto &row : rows)
        for (auto &cell : row)
            cell = markdown ? text::markdown_text(cell) : text::terminal_text(cell);
    std::vector<std::size_t> width(rows.empty() ? 0 : rows[0].size(), 0);
    for (const auto &row : rows)
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    std::string out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line = markdown ? "|" : "";
        for (std::size_t i = 0; i < rows[r].size() && i < width.size(); ++i)
            line += markdown ? fmt::format(" {} |", rows[r][i])
                             : fmt::format(i ? "  {:>{}}" : "{:<{}}", rows[r][i], width[i]);
        out += line + "\n";
        if (markdown && r == 0) {
            std::string rule = "|";
            for (std::size_t i = 0; i < width.size(); ++i) rule += i ? "---:|" : "---|";
            out += rule + "\n";
        }
    }
    return out;
}

std::string grids_text(const std::vector<impl_grid> &grids, bool markdown) {
    if (grids.empty()) return "";
    std::string out = fmt::format(
        "\n{}Writer x reader (rows send or ping; in brackets: the ratio to native -> native)\n",
        markdown ? "### " : "");
    for (const auto &g : grids) {
        std::vector<std::vector<std::string>> rows{{"writer \\ reader"}};
        for (const auto &reader : g.readers) rows[0].push_back(reader);
        for (const auto &writer : g.writers) {
            rows.push_back({writer});
            for (const auto &reader : g.readers)
                rows.back().push_back(grid_cell(g, writer, reader));
        }
        out += fmt::format("\n{}{}\n", markdown ? "#### " : "",
                           markdown ? text::markdown_text(g.title) : text::terminal_text(g.title));
        out += grid_lines(rows, markdown);
    }
    return out;
}

std::string grids_html(const std::vector<impl_grid> &grids) {
    if (grids.empty()) return "";
    std::string out =
        "<h2>Writer &times; reader</h2>\n<p>Rows: the sending (pinging) side; columns: the "
        "receiving (ponging) side. In brackets: the ratio to native &rarr; native (outlined); for "
        "latency below 1 is faster.</p>\n";
    for (const auto &g : grids) {
        out +=
            fmt::format("<h3>{}</h3>\n<table class=\"grid\"><thead><tr><th>writer \\ reader</th>",
                        html_escape(g.title));
        for (const auto &reader : g.readers) out += "<th>" + html_escape(reader) + "</th>";
        out += "</tr></thead><tbody>\n";
        for (const auto &writer : g.writers) {
            out += "<tr><th>" + html_escape(writer) + "</th>";
            for (const auto &reader : g.readers)
                out +=
                    fmt::format("<td{}>{}</td>",
                                writer == native && reader == native ? " class=\"baseline\"" : "",
                                html_escape(grid_cell(g, writer, reader)));
            out += "</tr>\n";
        }
        out += "</tbody></table>\n";
    }
    return out;
}

}  // namespace ipcbench::report
