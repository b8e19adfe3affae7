// `ipchost trend FILE...`: the change points of each case's headline figures over a series of
// runs (nightly results, in the order given), by E-divisive means (stats/change_points.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/change_table.hpp"
#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/result_file.hpp"
#include "stats/change_points.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

// The figures a series is kept of: the gate's (report/verdict_rules.hpp).
bool trended(const std::string &figure) {
    return report::gated_figure(figure, false);
}

// A run's name in the report: its labels (commit=abc123), else its file; with its start time.
std::string run_name(const report::run_report &r, const std::string &file) {
    std::string labels;
    for (const auto &[k, v] : r.labels) labels += (labels.empty() ? "" : " ") + k + "=" + v;
    return text::terminal_text((labels.empty() ? file : labels) +
                               (r.started_at.empty() ? "" : " (" + r.started_at + ")"));
}

struct series {
    std::vector<std::size_t> run;  // which file each value came from
    std::vector<double> values;
};

struct trend_rows {
    std::string text;
    nlohmann::json rows = nlohmann::json::array();
    std::size_t series_count = 0, changes = 0, too_short = 0;
};

void report_series(const std::string &key, const std::string &figure, const series &s,
                   const std::vector<std::string> &names, trend_rows &out) {
    ++out.series_count;
    const stats::change_point_options options;
    if (s.values.size() < 2 * options.min_size) {
        ++out.too_short;
        return;
    }
    std::vector<double> logs;
    for (double v : s.values) logs.push_back(std::log(v));
    const auto view = view_of(figure);
    for (const auto &c : stats::e_divisive(logs, options)) {
        ++out.changes;
        const double before = std::exp(c.before), after = std::exp(c.after);
        const std::string &from = names[s.run[c.index - 1]], &to = names[s.run[c.index]];
        out.text += fmt::format("{} {}: {} -> {} ({:+.1f} %), between {} and {}; p = {:.3f}\n", key,
                                view.label, figure_text(before * view.scale),
                                figure_text(after * view.scale), (after / before - 1) * 100, from,
                                to, c.p_value);
        out.rows.push_back({{"case", key},
                            {"figure", figure},
                            {"before", before},
                            {"after", after},
                            {"change_percent", (after / before - 1) * 100},
                            {"last_run_before", from},
                            {"first_run_after", to},
                            {"index", c.index},
                            {"p_value", c.p_value}});
    }
}

}  // namespace

int trend_command(const command_line &cmd) {
    std::vector<std::string> names;
    std::vector<std::string> order;
    std::map<std::string, std::map<std::string, series>> all;  // case -> figure -> series
    for (std::size_t i = 0; i < cmd.inputs.size(); ++i) {
        const auto run = load_result_file(cmd.inputs[i]);
        names.push_back(run_name(run, cmd.inputs[i]));
        for (const auto &r : run.results) {
            if (!r.ok()) continue;
            const std::string key = case_key(r);
            if (!all.count(key)) order.push_back(key);
            for (const auto &[figure, value] : report::comparable_figures(r))
                if (trended(figure) && value > 0 && std::isfinite(value)) {
                    all[key][figure].run.push_back(i);
                    all[key][figure].values.push_back(value);
                }
        }
    }
    trend_rows out;
    for (const auto &key : order)
        for (const auto &[figure, s] : all[key]) report_series(key, figure, s, names, out);
    std::string text = fmt::format(
        "{} runs, {} series (case and figure); change points by E-divisive means (energy "
        "distance on the logs, 499 seeded permutations, p < 0.01, at least 3 runs a side): {}\n",
        names.size(), out.series_count, out.changes);
    if (out.too_short > 0)
        text += fmt::format("{} series have fewer than 6 runs: too short to find a change\n",
                            out.too_short);
    text += out.text;
    if (cmd.format == report::output_format::json)
        text = nlohmann::json{{"runs", names},
                              {"series", out.series_count},
                              {"too_short", out.too_short},
                              {"change_points", out.rows}}
                   .dump(2, ' ', true) +
               "\n";
    write_text(text, cmd.output);
    return 0;
}

}  // namespace ipcbench::cli
