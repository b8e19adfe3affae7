// `ipchost compare BASE.json NEW.json`: per matching case and figure, the ratio of the medians
// and a verdict from a two-sided Mann-Whitney U test over the repetitions.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/result_file.hpp"
#include "cli/usage_error.hpp"
#include "report/json_report.hpp"
#include "report/result_columns.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

constexpr double alpha = 0.05;

// The case's name as compare prints it: from two files that may be anyone's, so made safe for a
// terminal (text::terminal_text).
std::string case_key(const report::case_result &r) {
    const auto &c = r.settings;
    return text::terminal_text(
        fmt::format("{} {} {}{} {}{}{}", c.transport_id, model::to_string(c.mode),
                    model::to_string(r.direction), r.bidir() ? " bidir" : "",
                    report::format_size(c.size_bytes),
                    c.streams > 1 ? fmt::format(" x{}", c.streams) : "",
                    c.rate_per_s > 0 ? fmt::format(" @{:g}/s", c.rate_per_s) : "") +
        // A fleet's rows compare pair by pair.
        (r.fleet ? fmt::format(" {} -> {}", r.fleet->source, r.fleet->destination) : ""));
}

std::vector<double> samples_of(const report::case_result &r, const std::string &figure,
                               double value) {
    auto it = r.statistics.find(figure);
    if (it != r.statistics.end() && !it->second.second.empty()) return it->second.second;
    return {value};
}

std::string verdict_for(const std::string &figure, bool enough, double p, bool improved) {
    const bool cpu = figure.find("cpu") != std::string::npos;
    if (!enough) return "too few repetitions for a test (--repeat 5 or more)";
    if (p >= alpha) return "no significant difference";
    if (improved) return cpu ? "cheaper" : "faster";
    return cpu ? "costlier" : "slower";
}

// --fail-on-regression: exit 1 naming each figure that got significantly worse.
int report_regressions(const std::vector<std::string> &regressions, double percent) {
    if (regressions.empty()) return 0;
    fmt::print(stderr,
               "ipchost compare: {} {} significantly worse by more than {:g}% "
               "(--fail-on-regression):\n",
               regressions.size(), regressions.size() == 1 ? "figure got" : "figures got", percent);
    for (const auto &line : regressions) fmt::print(stderr, "  {}\n", line);
    return 1;
}

// The settings in which two matched cases differ ("batch 1 -> 32"), from the one field list
// both results carry, so a compare of runs that differ on purpose says so on every row.
std::vector<std::string> settings_differences(const report::case_result &base,
                                              const report::case_result &next) {
    const nlohmann::json a = base.settings, b = next.settings;
    std::vector<std::string> out;
    for (const auto &[name, value] : b.items())
        if (a.value(name, nlohmann::json()) != value)
            out.push_back(text::terminal_text(fmt::format(
                "{} {} -> {}", name, a.value(name, nlohmann::json()).dump(), value.dump())));
    return out;
}

struct comparison {
    explicit comparison(const command_line &c) : cmd(c) {}
    const command_line &cmd;
    nlohmann::json rows = nlohmann::json::array();
    nlohmann::json differences = nlohmann::json::object();
    std::vector<std::string> regressions;
    std::string text = fmt::format("{:<36} {:<28} {:>12} {:>12} {:>7} {:>8}  {}\n", "case",
                                   "figure", "base", "new", "ratio", "p", "verdict");

    void add(const report::case_result &b, const report::case_result &r) {
        const std::string key = case_key(r);
        if (const auto differ = settings_differences(b, r); !differ.empty()) {
            differences[key] = differ;
            text += fmt::format("{}: the settings differ: {}\n", key, fmt::join(differ, ", "));
        }
        const auto base_figures = report::comparable_figures(b);
        for (const auto &[figure, value] : report::comparable_figures(r)) {
            auto bf = base_figures.find(figure);
            if (bf == base_figures.end() || bf->second == 0) continue;
            figure_row(key, figure, samples_of(b, figure, bf->second),
                       samples_of(r, figure, value));
        }
    }

    void figure_row(const std::string &key, const std::string &figure,
                    const std::vector<double> &xs, const std::vector<double> &ys) {
        const double base_median = stats::summarize(xs).median;
        const double new_median = stats::summarize(ys).median;
        const double ratio = base_median != 0 ? new_median / base_median : 0;
        const bool enough = xs.size() >= 2 && ys.size() >= 2;
        const double p = enough ? stats::mann_whitney_p(xs, ys) : 1;
        const bool better_if_higher = report::higher_is_better(figure);
        const bool improved = better_if_higher ? ratio > 1 : ratio < 1;
        const std::string verdict = verdict_for(figure, enough, p, improved);
        const double change = (improved ? 1 : -1) * std::fabs(ratio - 1) * 100;
        if (enough && p < alpha && !improved && cmd.fail_on_regression >= 0 &&
            std::fabs(ratio - 1) * 100 > cmd.fail_on_regression)
            regressions.push_back(fmt::format("{} {}: {:.4g} -> {:.4g} ({:+.1f}%, p = {:.4f})", key,
                                              figure, base_median, new_median, (ratio - 1) * 100,
                                              p));
        rows.push_back({{"case", key},
                        {"figure", figure},
                        {"base", base_median},
                        {"new", new_median},
                        {"ratio", ratio},
                        {"p_value", p},
                        {"base_samples", xs.size()},
                        {"new_samples", ys.size()},
                        {"change_percent", change},
                        {"verdict", verdict}});
        text += fmt::format("{:<36} {:<28} {:>12.4g} {:>12.4g} {:>7.3f} {:>8.4f}  {}\n", key,
                            figure, base_median, new_median, ratio, p, verdict);
    }
};

}  // namespace

int compare_command(const command_line &cmd) {
    const auto base = load_result_file(cmd.inputs[0]);
    const auto next = load_result_file(cmd.inputs[1]);
    std::map<std::string, const report::case_result *> base_cases;
    for (const auto &r : base.results)
        if (r.ok()) base_cases[case_key(r)] = &r;

    comparison c(cmd);
    std::vector<std::string> unmatched;
    for (const auto &r : next.results) {
        if (!r.ok()) continue;
        auto match = base_cases.find(case_key(r));
        if (match == base_cases.end())
            unmatched.push_back(case_key(r));
        else
            c.add(*match->second, r);
    }
    std::string text = c.text;
    for (const auto &u : unmatched) text += "not in the base run: " + u + "\n";
    if (cmd.format == report::output_format::json) {
        nlohmann::json doc = {{"base", cmd.inputs[0]},
                              {"new", cmd.inputs[1]},
                              {"alpha", alpha},
                              {"comparisons", c.rows},
                              {"settings_differ", c.differences},
                              {"unmatched", unmatched}};
        text = doc.dump(2) + "\n";
    }
    if (cmd.output.empty())
        fmt::print("{}", text);
    else
        std::ofstream(cmd.output) << text;
    return report_regressions(c.regressions, cmd.fail_on_regression);
}

}  // namespace ipcbench::cli
