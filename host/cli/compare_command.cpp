// `ipchost compare BASE.json NEW.json`: per matching case and figure, the ratio new / base with
// its 95 % interval over the two files' repetitions and a verdict (report/verdict_rules.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/change_table.hpp"
#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/result_file.hpp"
#include "cli/usage_error.hpp"
#include "report/json_report.hpp"
#include "report/result_columns.hpp"
#include "report/verdict_rules.hpp"
#include "stats/summary_statistics.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

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

// Every matched case's figures, judged together (Holm across the gated ones).
struct comparison {
    explicit comparison(const command_line &c) : cmd(c) {}
    const command_line &cmd;
    nlohmann::json differences = nlohmann::json::object();
    std::vector<report::figure_change> changes;
    std::size_t cases = 0;
    std::string settings_text;

    void add(const report::case_result &b, const report::case_result &r) {
        ++cases;
        const std::string key = case_key(r);
        if (const auto differ = settings_differences(b, r); !differ.empty()) {
            differences[key] = differ;
            settings_text +=
                fmt::format("{}: the settings differ: {}\n", key, fmt::join(differ, ", "));
        }
        const auto base_figures = figure_samples(b);
        for (auto &[figure, samples] : figure_samples(r)) {
            auto bf = base_figures.find(figure);
            if (bf == base_figures.end() || stats::summarize(bf->second).median == 0) continue;
            report::figure_change c;
            c.case_key = key;
            c.figure = figure;
            c.base = bf->second;
            c.next = samples;
            changes.push_back(std::move(c));
        }
    }

    std::size_t count(report::verdict v) const {
        std::size_t n = 0;
        for (const auto &c : changes) n += c.result == v ? 1 : 0;
        return n;
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
    using report::verdict;
    return fmt::format(
        "compared {} {} ({} figures): {} better, {} worse, {} equivalent within +/-{:g} %, {} "
        "inconclusive; {} base {} missing from the new run, {} new without a base\n",
        c.cases, c.cases == 1 ? "case" : "cases", c.changes.size(), c.count(verdict::faster),
        c.count(verdict::slower), c.count(verdict::equivalent), c.cmd.threshold * 100,
        c.count(verdict::inconclusive), missing, missing == 1 ? "case" : "cases", unmatched);
}

// Two files are two runs: what the intervals include, and whether the files can be judged.
std::string method_lines(const comparison &c, const report::gate_settings &s) {
    std::size_t fewest = SIZE_MAX, gated = 0;
    for (const auto &f : c.changes)
        if (f.gated) {
            ++gated;
            fewest = std::min({fewest, f.base.size(), f.next.size()});
        }
    std::string out =
        "two files from two runs: each interval includes the machine's drift between them "
        "(ipchost ab measures base and new interleaved in one run)\n";
    const std::size_t least = report::least_samples(s, gated);
    if (gated > 0 && fewest < least)
        out += fmt::format(
            "too few repetitions for a verdict on the {} gated figures: {} in a "
            "file, {} needed (measure with --repeat {})\n",
            gated, fewest, least, least);
    return out;
}

}  // namespace

namespace {

nlohmann::json comparison_json(const command_line &cmd, const comparison &c,
                               const std::vector<std::string> &conditions,
                               const std::vector<std::string> &missing,
                               const std::vector<std::string> &unmatched) {
    using report::verdict;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto &f : c.changes) {
        auto row = change_row_json(f);
        row["p_value"] = stats::mann_whitney_p(f.base, f.next);  // two-sided, no threshold
        rows.push_back(std::move(row));
    }
    return {{"base", cmd.inputs[0]},
            {"new", cmd.inputs[1]},
            {"method",
             "unpaired: Hodges-Lehmann shift of the logs with its Mann-Whitney 95 % interval; "
             "gate: Holm across the gated figures"},
            {"threshold_percent", cmd.threshold * 100},
            {"alpha", report::gate_settings{}.alpha},
            {"summary",
             {{"compared", c.cases},
              {"better", c.count(verdict::faster)},
              {"worse", c.count(verdict::slower)},
              {"equivalent", c.count(verdict::equivalent)},
              {"inconclusive", c.count(verdict::inconclusive)},
              {"missing", missing.size()},
              {"new", unmatched.size()}}},
            {"conditions_differ", conditions},
            {"comparisons", rows},
            {"settings_differ", c.differences},
            {"missing", missing},
            {"unmatched", unmatched}};
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
    report::gate_settings settings;
    settings.threshold = cmd.threshold;
    settings.gate_cpu = cmd.gate_cpu;
    settings.paired = false;
    settings.most_rounds = command_line::default_repeat_cap;
    report::judge_changes(c.changes, settings);
    const auto conditions = condition_differences(base, next);
    std::string text = summary_line(c, missing.size(), unmatched.size());
    for (const auto &line : conditions) text += "conditions differ: " + line + "\n";
    text += method_lines(c, settings) + c.settings_text + change_table_header();
    for (const auto &f : c.changes) text += change_row_text(f);
    for (const auto &m : missing) text += "missing from the new run: " + m + "\n";
    for (const auto &u : unmatched) text += "not in the base run: " + u + "\n";
    if (cmd.format == report::output_format::json)
        text = comparison_json(cmd, c, conditions, missing, unmatched).dump(2, ' ', true) + "\n";
    write_text(text, cmd.output);
    const int gaps = report_missing(cmd, c.cases, missing, unmatched);
    if (gaps != 0 || cmd.fail_on_regression < 0) return gaps;
    return report_gate("compare", c.changes, report::gate(c.changes, settings));
}

}  // namespace ipcbench::cli
