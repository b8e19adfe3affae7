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
        (r.fleet ? fmt::format(" {} -> {}", r.fleet->source, r.fleet->destination) : "") +
        // Who ran each side (a kit and its API: go, dotnet:sync, mono): another implementation
        // is another case, never a row to compare with native's.
        (c.sender_impl != "native" || c.receiver_impl != "native"
             ? fmt::format(" [{} -> {}]", c.sender_impl, c.receiver_impl)
             : ""));
}

// A figure as the run's table shows it: its name with the unit, and the factor from the file's
// base unit (B/s to MB/s, ns to µs).
struct figure_view {
    std::string label;
    double scale;
};

figure_view view_of(const std::string &figure) {
    if (figure == "bytes_per_sec") return {"MB/s", 1e-6};
    if (figure == "messages_per_sec") return {"msg/s", 1};
    if (figure.rfind("latency_", 0) == 0 && figure.size() > 11)  // latency_p50_ns -> p50 µs
        return {figure.substr(8, figure.size() - 11) + " µs", 1e-3};
    if (figure.size() > 8 && figure.compare(figure.size() - 8, 8, "_percent") == 0)
        return {figure.substr(0, figure.size() - 8) + " %", 1};  // sender_cpu %
    if (figure.size() > 15 && figure.compare(figure.size() - 15, 15, "_us_per_message") == 0)
        return {figure.substr(0, figure.size() - 15) + " µs/msg", 1};
    return {figure, 1};
}

// "kernel '6.1' -> '6.6'" when a text condition differs (quoted, made safe for a terminal).
void text_difference(const char *what, const std::string &x, const std::string &y,
                     std::vector<std::string> &out) {
    if (x != y) out.push_back(text::terminal_text(fmt::format("{} '{}' -> '{}'", what, x, y)));
}

// What differs between the two machines (or one machine at two times) that moves figures:
// stated above the verdicts, so a regression on a busier machine is read as such.
// The noise sources `ipchost system` names, as recorded over each run (when both were sampled).
void noise_differences(const platform::machine_conditions &a, const platform::machine_conditions &b,
                       std::vector<std::string> &out) {
    if (a.sample_s <= 0 || b.sample_s <= 0) return;
    text_difference("turbo", a.turbo, b.turbo, out);
    text_difference("SMT", a.smt, b.smt, out);
    text_difference("isolated CPUs", a.isolated_cpus, b.isolated_cpus, out);
    text_difference("virtualisation", a.virtualization, b.virtualization, out);
    if (a.irqbalance != b.irqbalance)
        out.push_back(fmt::format("irqbalance {} -> {}", a.irqbalance ? "running" : "stopped",
                                  b.irqbalance ? "running" : "stopped"));
    const double sa = a.steal_percent, sb = b.steal_percent;
    if (sa >= 0 && sb >= 0 && std::fabs(sa - sb) >= 1)
        out.push_back(fmt::format("steal {:.1f}% -> {:.1f}% of the CPU time", sa, sb));
    if (a.busiest.size() != b.busiest.size())
        out.push_back(
            fmt::format("busy other processes {} -> {}", a.busiest.size(), b.busiest.size()));
}

std::vector<std::string> condition_differences(const report::run_report &base,
                                               const report::run_report &next) {
    const platform::system_info &a = base.environment, &b = next.environment;
    std::vector<std::string> out;
    text_difference("CPU", a.cpu_model, b.cpu_model, out);
    text_difference("kernel", a.kernel, b.kernel, out);
    text_difference("frequency governor", a.governor, b.governor, out);
    text_difference("host", a.hostname, b.hostname, out);
    if (a.cores != b.cores) out.push_back(fmt::format("cores {} -> {}", a.cores, b.cores));
    const double la = a.load_average_1m, lb = b.load_average_1m;
    if (la >= 0 && lb >= 0 && std::fabs(la - lb) > std::max(0.5, 0.25 * std::max(la, lb)))
        out.push_back(fmt::format("load average {:.2f} -> {:.2f} (on {} cores)", la, lb, b.cores));
    noise_differences(base.conditions, next.conditions, out);
    return out;
}

// A figure as the tables print one: four significant digits, never in e-notation.
std::string figure_text(double v) {
    const double a = std::fabs(v);
    if (a >= 1e4) return fmt::format("{:.0f}", v);
    if (a >= 100) return fmt::format("{:.1f}", v);
    if (a >= 1) return fmt::format("{:.3f}", v);
    return fmt::format("{:.4g}", v);
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
    std::size_t cases = 0, better = 0, worse = 0, unchanged = 0;
    std::string text = fmt::format("{:<44} {:<22} {:>12} {:>12} {:>7} {:>8}  {}\n", "case",
                                   "figure", "base", "new", "ratio", "p", "verdict");

    void add(const report::case_result &b, const report::case_result &r) {
        ++cases;
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
        ++(enough && p < alpha ? (improved ? better : worse) : unchanged);
        const double change = (improved ? 1 : -1) * std::fabs(ratio - 1) * 100;
        const figure_view view = view_of(figure);
        const std::string base_text = figure_text(base_median * view.scale);
        const std::string new_text = figure_text(new_median * view.scale);
        if (enough && p < alpha && !improved && cmd.fail_on_regression >= 0 &&
            std::fabs(ratio - 1) * 100 > cmd.fail_on_regression)
            regressions.push_back(fmt::format("{} {}: {} -> {} ({:+.1f}%, p = {:.4f})", key,
                                              view.label, base_text, new_text, (ratio - 1) * 100,
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
        text += fmt::format("{:<44} {:<22} {:>12} {:>12} {:>7.3f} {:>8.4f}  {}\n", key, view.label,
                            base_text, new_text, ratio, p, verdict);
    }
};

// The gate cannot pass on nothing: with --fail-on-regression, no case compared, or cases on
// one side only (a renamed transport, a changed size list), fail unless --allow-missing.
int report_missing(const command_line &cmd, std::size_t compared,
                   const std::vector<std::string> &missing,
                   const std::vector<std::string> &unmatched) {
    if (cmd.fail_on_regression < 0) return 0;
    if (compared == 0) {
        fmt::print(stderr,
                   "ipchost compare: no case of the new run matches one of the base run: nothing "
                   "was compared (--fail-on-regression fails on that; compare runs of the same "
                   "cases)\n");
        return 1;
    }
    if (cmd.allow_missing || (missing.empty() && unmatched.empty())) return 0;
    fmt::print(stderr,
               "ipchost compare: {} base {} missing from the new run and {} new {} no base "
               "(--fail-on-regression; add --allow-missing to gate on what matches):\n",
               missing.size(), missing.size() == 1 ? "case is" : "cases are", unmatched.size(),
               unmatched.size() == 1 ? "case has" : "cases have");
    for (const auto &m : missing) fmt::print(stderr, "  missing: {}\n", m);
    for (const auto &u : unmatched) fmt::print(stderr, "  new: {}\n", u);
    return 1;
}

std::string summary_line(const comparison &c, std::size_t missing, std::size_t unmatched) {
    return fmt::format(
        "compared {} {} ({} figures): {} better, {} worse, {} unchanged or not significant; {} "
        "base {} missing from the new run, {} new without a base\n",
        c.cases, c.cases == 1 ? "case" : "cases", c.better + c.worse + c.unchanged, c.better,
        c.worse, c.unchanged, missing, missing == 1 ? "case" : "cases", unmatched);
}

}  // namespace

int compare_command(const command_line &cmd) {
    const auto base = load_result_file(cmd.inputs[0]);
    const auto next = load_result_file(cmd.inputs[1]);
    std::map<std::string, const report::case_result *> base_cases;
    for (const auto &r : base.results)
        if (r.ok()) base_cases[case_key(r)] = &r;

    comparison c(cmd);
    std::vector<std::string> unmatched, missing;
    for (const auto &r : next.results) {
        if (!r.ok()) continue;
        auto match = base_cases.find(case_key(r));
        if (match == base_cases.end()) {
            unmatched.push_back(case_key(r));
        } else {
            c.add(*match->second, r);
            base_cases.erase(match);
        }
    }
    for (const auto &[key, r] : base_cases) missing.push_back(key);
    const auto conditions = condition_differences(base, next);
    std::string text = summary_line(c, missing.size(), unmatched.size());
    for (const auto &line : conditions) text += "conditions differ: " + line + "\n";
    text += c.text;
    for (const auto &m : missing) text += "missing from the new run: " + m + "\n";
    for (const auto &u : unmatched) text += "not in the base run: " + u + "\n";
    if (cmd.format == report::output_format::json) {
        nlohmann::json doc = {{"base", cmd.inputs[0]},
                              {"new", cmd.inputs[1]},
                              {"alpha", alpha},
                              {"summary",
                               {{"compared", c.cases},
                                {"better", c.better},
                                {"worse", c.worse},
                                {"unchanged", c.unchanged},
                                {"missing", missing.size()},
                                {"new", unmatched.size()}}},
                              {"conditions_differ", conditions},
                              {"comparisons", c.rows},
                              {"settings_differ", c.differences},
                              {"missing", missing},
                              {"unmatched", unmatched}};
        text = doc.dump(2) + "\n";
    }
    if (cmd.output.empty())
        fmt::print("{}", text);
    else
        std::ofstream(cmd.output) << text;
    const int gaps = report_missing(cmd, c.cases, missing, unmatched);
    return std::max(gaps, report_regressions(c.regressions, cmd.fail_on_regression));
}

}  // namespace ipcbench::cli
