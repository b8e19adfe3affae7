#include "report/fleet_heatmap.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "report/impl_grid.hpp"
#include "report/result_columns.hpp"
#include "report/svg_chart.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::report {
namespace {

using pair_key = std::pair<std::string, std::string>;

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median and 1.4826 x the median absolute deviation.
std::pair<double, double> centre_and_spread(const std::vector<double> &v) {
    const double m = median_of(v);
    std::vector<double> deviations;
    deviations.reserve(v.size());
    for (double x : v) deviations.push_back(std::fabs(x - m));
    return {m, 1.4826 * median_of(deviations)};
}

bool outlying(double v, double median, double spread, double k) {
    const double off = std::fabs(v - median);
    return spread > 0 && off > k * spread && off > fleet_outlier_share * std::fabs(median);
}

struct figure {
    const char *name;  // in the title
    bool higher_is_better;
    bool latency;
    double (*of)(const case_result &);
};

const figure figures[] = {
    {"MB/s", true, false, [](const case_result &r) { return r.throughput->bytes_per_sec / 1e6; }},
    {"round trip p50 in us", false, true,
     [](const case_result &r) { return static_cast<double>(r.latency->p50) / 1e3; }},
    {"round trip p99 in us", false, true,
     [](const case_result &r) { return static_cast<double>(r.latency->p99) / 1e3; }},
};

void mark_outliers(fleet_heatmap &m, double k) {
    std::vector<double> all;
    for (const auto &[pair, v] : m.values) all.push_back(v);
    std::tie(m.median, m.scaled_mad) = centre_and_spread(all);
    for (const auto &[pair, v] : m.values)
        if (outlying(v, m.median, m.scaled_mad, k)) m.outlier_pairs.insert(pair);
    std::map<std::string, double> own;
    for (const auto &agent : m.agents) {
        std::vector<double> mine;
        for (const auto &[pair, v] : m.values)
            if (pair.first == agent || pair.second == agent) mine.push_back(v);
        if (!mine.empty()) own[agent] = median_of(mine);
    }
    std::vector<double> medians;
    medians.reserve(own.size());
    for (const auto &[agent, v] : own) medians.push_back(v);
    const auto [centre, spread] = centre_and_spread(medians);
    for (const auto &[agent, v] : own)
        if (outlying(v, centre, spread, k)) m.outlier_agents[agent] = v;
}

std::string labels_text(const std::map<std::string, std::string> &labels) {
    std::vector<std::string> words;
    words.reserve(labels.size());
    for (const auto &[key, value] : labels) words.push_back(key + "=" + value);
    return fmt::format("{}", fmt::join(words, " "));
}

// An agent as a row heads it: its address, then its labels.
std::string agent_heading(const fleet_heatmap &m, const std::string &agent) {
    const auto l = m.agent_labels.find(agent);
    return l == m.agent_labels.end() ? agent : agent + " " + l->second;
}

std::string format_value(double v) {
    return fmt::format(v >= 100 ? "{:.0f}" : "{:.2f}", v);
}

std::string cell_text(const fleet_heatmap &m, const pair_key &p) {
    if (p.first == p.second) return "-";
    if (const auto v = m.values.find(p); v != m.values.end())
        return format_value(v->second) + (m.outlier_pairs.count(p) ? " !" : "");
    return m.failed.count(p) ? "failed" : "";
}

}  // namespace

std::vector<fleet_heatmap> fleet_heatmaps(const run_report &report, double k) {
    using key = std::tuple<std::string, std::uint64_t, int, int, int>;
    std::map<key, fleet_heatmap> maps;
    std::vector<key> order;
    for (const auto &r : report.results) {
        if (!r.fleet) continue;
        const auto &s = r.settings;
        const bool latency = r.is(model::measure_mode::latency);
        for (int f = 0; f < 3; ++f) {
            if (figures[f].latency != latency) continue;
            const key k2{s.transport_id, s.size_bytes, f, s.streams, static_cast<int>(r.direction)};
            auto [it, fresh] = maps.try_emplace(k2);
            fleet_heatmap &m = it->second;
            if (fresh) {
                order.push_back(k2);
                m.higher_is_better = figures[f].higher_is_better;
                m.title = fmt::format("{} {} {}{}{}, {}", s.transport_id, format_size(s.size_bytes),
                                      latency ? "latency" : "throughput",
                                      s.streams > 1 ? fmt::format(", {} streams", s.streams) : "",
                                      r.direction == model::traffic_direction::reverse && r.bidir()
                                          ? ", reverse half"
                                          : "",
                                      figures[f].name);
            }
            for (const auto &[agent, labels] :
                 {std::pair{&r.fleet->source, &r.fleet->source_labels},
                  std::pair{&r.fleet->destination, &r.fleet->destination_labels}}) {
                if (std::find(m.agents.begin(), m.agents.end(), *agent) == m.agents.end())
                    m.agents.push_back(*agent);
                if (!labels->empty()) m.agent_labels[*agent] = labels_text(*labels);
            }
            const pair_key p{r.fleet->source, r.fleet->destination};
            const bool measured =
                r.ok() && (latency ? r.latency.has_value() : r.throughput.has_value());
            if (measured)
                m.values[p] = figures[f].of(r);
            else
                m.failed[p] = r.error;
        }
    }
    std::vector<fleet_heatmap> out;
    for (const auto &k2 : order) {
        fleet_heatmap &m = maps.at(k2);
        std::sort(m.agents.begin(), m.agents.end());
        mark_outliers(m, k);
        out.push_back(std::move(m));
    }
    return out;
}

std::string heatmaps_text(const std::vector<fleet_heatmap> &maps, bool markdown) {
    if (maps.empty()) return "";
    std::string out = fmt::format(
        "\n{}Source x destination (rows send or ping; ! more than {:g} scaled MADs and {:g} % "
        "from the fleet's median)\n",
        markdown ? "### " : "", fleet_outlier_mads, fleet_outlier_share * 100);
    for (const auto &m : maps) {
        out += fmt::format("\n{}{} (median {}, scaled MAD {})\n", markdown ? "#### " : "",
                           markdown ? text::markdown_text(m.title) : text::terminal_text(m.title),
                           format_value(m.median), format_value(m.scaled_mad));
        std::vector<std::vector<std::string>> rows{{"source \\ destination"}};
        for (const auto &d : m.agents) rows[0].push_back(d);
        for (const auto &s : m.agents) {
            rows.push_back({agent_heading(m, s)});
            for (const auto &d : m.agents) rows.back().push_back(cell_text(m, {s, d}));
        }
        out += grid_lines(rows, markdown);
        for (const auto &[agent, v] : m.outlier_agents)
            out += fmt::format("outlier agent: {} (its pairs' median {})\n",
                               markdown ? text::markdown_text(agent) : text::terminal_text(agent),
                               format_value(v));
    }
    return out;
}

namespace {

// An agent's heading cell: its address, its labels below in small type.
std::string agent_heading_html(const fleet_heatmap &m, const std::string &agent) {
    const auto l = m.agent_labels.find(agent);
    return html_escape(agent) +
           (l == m.agent_labels.end() ? "" : "<br><small>" + html_escape(l->second) + "</small>");
}

// A cell's shade: light for the fleet's worst figure, dark for its best.
std::string shade(const fleet_heatmap &m, double v) {
    double lo = v, hi = v;
    for (const auto &[p, x] : m.values) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    double good = hi > lo ? (v - lo) / (hi - lo) : 1;
    if (!m.higher_is_better) good = 1 - good;
    return fmt::format("background:hsl(210,70%,{:.0f}%);color:{}", 92 - 52 * good,
                       good > 0.6 ? "#fff" : "#000");
}

}  // namespace

std::string heatmaps_html(const std::vector<fleet_heatmap> &maps) {
    if (maps.empty()) return "";
    std::string out = fmt::format(
        "<h2>Source &times; destination</h2>\n<p>Rows: the source agent (it sends, or pings); "
        "columns: the destination. Darker is better. Outlined in red: more than {:g} scaled MADs "
        "(1.4826 &times; the median absolute deviation) and more than {:g} % from the fleet's "
        "median.</p>\n",
        fleet_outlier_mads, fleet_outlier_share * 100);
    for (const auto &m : maps) {
        out += fmt::format(
            "<h3>{}</h3>\n<p>median {}, scaled MAD {}</p>\n<table class=\"grid "
            "heatmap\"><thead><tr>"
            "<th>source \\ destination</th>",
            html_escape(m.title), format_value(m.median), format_value(m.scaled_mad));
        for (const auto &d : m.agents) out += "<th>" + agent_heading_html(m, d) + "</th>";
        out += "</tr></thead><tbody>\n";
        for (const auto &s : m.agents) {
            out += "<tr><th>" + agent_heading_html(m, s) + "</th>";
            for (const auto &d : m.agents) {
                const pair_key p{s, d};
                const auto v = m.values.find(p);
                std::string attributes;
                if (v != m.values.end())
                    attributes = fmt::format(" style=\"{}\"{}", shade(m, v->second),
                                             m.outlier_pairs.count(p) ? " class=\"outlier\"" : "");
                else if (const auto f = m.failed.find(p); f != m.failed.end())
                    attributes = " class=\"failed\" title=\"" + html_escape(f->second) + "\"";
                out += fmt::format("<td{}>{}</td>", attributes, html_escape(cell_text(m, p)));
            }
            out += "</tr>\n";
        }
        out += "</tbody></table>\n";
        if (!m.outlier_agents.empty()) {
            out += "<p>Outlier agents:";
            for (const auto &[agent, v] : m.outlier_agents)
                out +=
                    fmt::format(" {} (its pairs' median {})", html_escape(agent), format_value(v));
            out += "</p>\n";
        }
    }
    return out;
}

}  // namespace ipcbench::report
