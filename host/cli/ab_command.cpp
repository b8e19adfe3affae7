// `ipchost ab`: base and new measured side by side on this machine, in rounds of one base run
// and one new run (ABBA order, each run its own ipchost and worker processes), every figure
// judged from the paired rounds by report/verdict_rules.hpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "cli/change_table.hpp"
#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/result_file.hpp"
#include "cli/usage_error.hpp"
#include "platform/command_output.hpp"
#include "platform/file_trust.hpp"
#include "platform/run_directory.hpp"
#include "platform/signals.hpp"
#include "report/verdict_rules.hpp"
#include "stats/summary_statistics.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

// One run of one side may take this long before it is ended (each case has its own watchdog
// inside it; this bounds a child that stops answering altogether).
constexpr int side_timeout_ms = 3'600'000;
constexpr std::size_t side_output_bytes = 16384;

struct side {
    std::string name;               // "base" or "new"
    std::string program;            // absolute, held to the plugin rules
    std::vector<std::string> own;   // --base-arg / --new-arg
    std::vector<std::string> args;  // what it runs with: the run's options, then its own
};

// The ipchost a side runs: this one, or a path held to the rules a plugin is held to (another
// user's writable file would run as this user, often root).
std::string checked_program(const std::string &given, const char *flag) {
    if (given.empty()) return platform::self_executable_path();
    std::error_code ec;
    const auto path = std::filesystem::absolute(given, ec);
    if (ec || !std::filesystem::is_regular_file(path, ec))
        throw usage_error(
            fmt::format("{} '{}': no such file; give the path of an ipchost "
                        "executable (a build's bin/ipchost)",
                        flag, text::terminal_text(given)));
    std::string why = platform::untrusted_reason(path);
    if (why.empty()) why = platform::untrusted_folder_reason(path.parent_path());
    if (!why.empty())
        throw usage_error(
            fmt::format("{} '{}' refused: {}; ab runs it as this user, so it is "
                        "held to the plugin rules (chmod go-w, chown)",
                        flag, text::terminal_text(given), text::terminal_text(why)));
    return path.string();
}

// The last lines a failed side printed (its error), made safe for a terminal.
std::string last_lines(const std::string &text, std::size_t lines = 6) {
    std::vector<std::string> kept;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (end > start) kept.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    if (kept.size() > lines) kept.erase(kept.begin(), kept.end() - static_cast<long>(lines));
    std::string out;
    for (const auto &line : kept) out += "  " + text::terminal_text(line) + "\n";
    return out;
}

// Runs one side once: its ipchost writes JSON into the run's private folder.
report::run_report run_side(const side &s, int round, const std::filesystem::path &folder) {
    const auto file = folder / fmt::format("{}-{}.json", s.name, round);
    std::vector<std::string> argv{s.program};
    argv.insert(argv.end(), s.args.begin(), s.args.end());
    argv.insert(argv.end(), {"--format", "json", "--output", file.string(), "--quiet"});
    const auto out = platform::run_for_output(argv, side_timeout_ms, side_output_bytes,
                                              [] { return platform::interrupted(); });
    if (platform::interrupted()) throw std::runtime_error("interrupted");
    if (!out.failure.empty())
        throw std::runtime_error(
            fmt::format("the {} side could not start {}: {}", s.name, s.program, out.failure));
    if (out.timed_out || !out.status.exited || out.status.code != 0)
        throw std::runtime_error(fmt::format(
            "round {}: the {} side's run ended with {}{}:\n{}", round + 1, s.name,
            out.timed_out ? "no result in time" : out.status.describe(),
            out.status.exited && out.status.code == 2 ? " (a usage error: check the options)" : "",
            last_lines(out.text)));
    auto report = load_result_file(file.string());
    std::error_code ec;
    std::filesystem::remove(file, ec);
    return report;
}

// The samples of every case both sides ran, round by round: base[i] and next[i] are round i's.
struct case_series {
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> figures;
    int rounds = 0;
};

struct ab_state {
    std::vector<std::string> order;  // case keys, as first seen
    std::map<std::string, case_series> cases;
    std::set<std::string> missing;  // a case one side lacked (or failed) in some round
    nlohmann::json rounds = nlohmann::json::array();
    report::run_report first_base, last_new;
};

std::map<std::string, const report::case_result *> by_key(const report::run_report &r,
                                                          bool with_impl) {
    std::map<std::string, const report::case_result *> out;
    for (const auto &c : r.results)
        if (c.ok()) out[case_key(c, with_impl)] = &c;
    return out;
}

void add_round(ab_state &st, const report::run_report &base, const report::run_report &next,
               bool with_impl) {
    const auto a = by_key(base, with_impl), b = by_key(next, with_impl);
    for (const auto &r : base.results)
        if (!r.ok() || b.count(case_key(r, with_impl)) == 0)
            st.missing.insert(case_key(r, with_impl));
    for (const auto &r : next.results)
        if (!r.ok() || a.count(case_key(r, with_impl)) == 0)
            st.missing.insert(case_key(r, with_impl));
    for (const auto &[key, rb] : a) {
        const auto match = b.find(key);
        if (match == b.end()) continue;
        if (!st.cases.count(key)) st.order.push_back(key);
        auto &series = st.cases[key];
        ++series.rounds;
        const auto next_figures = report::comparable_figures(*match->second);
        for (const auto &[figure, value] : report::comparable_figures(*rb)) {
            const auto n = next_figures.find(figure);
            if (n == next_figures.end()) continue;
            series.figures[figure].first.push_back(value);
            series.figures[figure].second.push_back(n->second);
        }
    }
}

std::vector<report::figure_change> changes_of(const ab_state &st, const report::gate_settings &s) {
    std::vector<report::figure_change> out;
    for (const auto &key : st.order)
        for (const auto &[figure, samples] : st.cases.at(key).figures) {
            if (stats::summarize(samples.first).median <= 0 ||
                stats::summarize(samples.second).median <= 0)
                continue;  // a figure this case does not have (no CPU counted)
            report::figure_change c;
            c.case_key = key;
            c.figure = figure;
            c.base = samples.first;
            c.next = samples.second;
            out.push_back(std::move(c));
        }
    report::judge_changes(out, s);
    return out;
}

// Auto rounds stop when every gated figure is decided, or cannot be at the noise measured.
bool decided(const std::vector<report::figure_change> &changes) {
    for (const auto &c : changes)
        if (c.gated && c.result == report::verdict::inconclusive && c.more_rounds > 0) return false;
    return !changes.empty();
}

std::string side_text(const side &s) {
    return text::terminal_text(s.program +
                               (s.own.empty() ? "" : fmt::format(" {}", fmt::join(s.own, " "))));
}

side side_of(const char *name, const std::string &program, const char *flag,
             const std::vector<std::string> &own, const std::vector<std::string> &args) {
    return side{name, checked_program(program, flag), own, args};
}

// A side's argument that changes who runs a side makes the two sides' case names differ by
// their [sender -> receiver]: then cases are matched without it.
bool sides_change_impl(const command_line &cmd) {
    for (const auto *list : {&cmd.ab.base_args, &cmd.ab.new_args})
        for (const auto &a : *list)
            if (a.rfind("--impl", 0) == 0) return true;
    return false;
}

struct ab_run {
    ab_run(const command_line &c, side b, side n)
        : cmd(c), base(std::move(b)), next(std::move(n)) {}
    const command_line &cmd;
    side base, next;
    report::gate_settings settings;
    bool with_impl = true;
    ab_state st;
    std::vector<report::figure_change> changes;
    double seconds = 0;
    std::string failure;  // why the rounds stopped early ("" when they did not)

    bool more_rounds(int done) const {
        if (platform::interrupted() || !failure.empty()) return false;
        if (cmd.ab.rounds > 0) return done < cmd.ab.rounds;
        if (done >= ab_options::most_rounds) return false;
        if (done < 2 || done % 2 != 0) return true;  // whole ABBA pairs
        if (changes.empty()) return false;           // no case ran on both sides
        const std::size_t gated = static_cast<std::size_t>(
            std::count_if(changes.begin(), changes.end(), [](const auto &c) { return c.gated; }));
        if (done < static_cast<int>(report::least_samples(settings, gated))) return true;
        return seconds < cmd.ab.budget_s && !decided(changes);
    }

    void round(int r, const std::filesystem::path &folder) {
        const bool base_first = r % 2 == 0;  // A B, B A, A B, ...
        const auto started = std::chrono::steady_clock::now();
        report::run_report a, b;
        double sa = 0, sb = 0;
        for (int k = 0; k < 2; ++k) {
            const bool is_base = (k == 0) == base_first;
            const auto t0 = std::chrono::steady_clock::now();
            (is_base ? a : b) = run_side(is_base ? base : next, r, folder);
            (is_base ? sa : sb) =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        if (r == 0) st.first_base = a;
        st.last_new = b;
        add_round(st, a, b, with_impl);
        seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        st.rounds.push_back({{"round", r + 1},
                             {"first", base_first ? "base" : "new"},
                             {"base_seconds", sa},
                             {"new_seconds", sb},
                             {"load_average_1m", b.environment.load_average_1m}});
        changes = changes_of(st, settings);
    }

    void progress(int r) const {
        if (cmd.quiet) return;
        std::size_t gated = 0, open = 0;
        for (const auto &c : changes) {
            gated += c.gated ? 1 : 0;
            open += c.gated && c.result == report::verdict::inconclusive ? 1 : 0;
        }
        fmt::print(stderr,
                   "ipchost ab: round {} done ({:.0f} s in all): {} of {} gated figures "
                   "decided\n",
                   r + 1, seconds, gated - open, gated);
    }

    void run() {
        platform::run_directory folder;
        for (int r = 0; more_rounds(r); ++r) {
            try {
                round(r, folder.path());
            } catch (const std::exception &e) {
                failure = e.what();
                break;
            }
            progress(r);
        }
        if (platform::interrupted() && failure.empty()) failure = "interrupted";
    }
};

bool is_aa(const ab_run &run) {
    return run.base.program == run.next.program && run.base.own == run.next.own;
}

std::string method_text(const ab_run &run) {
    const std::size_t rounds = run.st.rounds.size();
    std::string out = fmt::format(
        "base: {}\nnew:  {}\n{} rounds in ABBA order (each side of a round its own ipchost and "
        "workers), {:.0f} s\nintervals: 95 %, paired (Wilcoxon signed-rank on the log ratios "
        "new/base, Hodges-Lehmann estimate); verdicts at +/-{:g} %; gate: MB/s, msg/s, p50, "
        "p99{}, Holm across the gated figures; noise: one round's scatter (95 %)\n",
        side_text(run.base), side_text(run.next), rounds, run.seconds, run.settings.threshold * 100,
        run.settings.gate_cpu ? ", CPU time per message" : "");
    if (is_aa(run))
        out +=
            "A/A: both sides ran the same, so the noise column is this machine's noise floor "
            "per figure now, and no verdict but equivalent or inconclusive is expected\n";
    for (const auto &line : condition_differences(run.st.first_base, run.st.last_new))
        out += "conditions moved during the rounds: " + line + "\n";
    return out;
}

nlohmann::json ab_json(const ab_run &run, const report::gate_outcome &outcome) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto &c : run.changes) rows.push_back(change_row_json(c));
    return {{"base", {{"ipchost", run.base.program}, {"args", run.base.own}}},
            {"new", {{"ipchost", run.next.program}, {"args", run.next.own}}},
            {"base_run_args", run.base.args},
            {"new_run_args", run.next.args},
            {"a_a", is_aa(run)},
            {"order", "ABBA"},
            {"method",
             "paired: Wilcoxon signed-rank 95 % interval of the log ratios, Hodges-Lehmann "
             "estimate; gate: Holm across the gated figures"},
            {"threshold_percent", run.settings.threshold * 100},
            {"alpha", run.settings.alpha},
            {"seconds", run.seconds},
            {"rounds", run.st.rounds},
            {"comparisons", rows},
            {"missing", run.st.missing},
            {"stopped_early", run.failure},
            {"gate", {{"exit_code", outcome.exit_code}, {"summary", outcome.summary}}}};
}

}  // namespace

int ab_command(const command_line &cmd) {
    platform::install_interrupt_handlers();
    ab_run run(
        cmd,
        side_of("base", cmd.ab.base_ipchost, "--base-ipchost", cmd.ab.base_args,
                cmd.ab.base_run_args),
        side_of("new", cmd.ab.new_ipchost, "--new-ipchost", cmd.ab.new_args, cmd.ab.new_run_args));
    run.settings.threshold = cmd.threshold;
    run.settings.gate_cpu = cmd.gate_cpu;
    run.settings.most_rounds = ab_options::most_rounds;
    run.with_impl = !sides_change_impl(cmd);
    run.run();
    const auto outcome = report::gate(run.changes, run.settings);
    std::string text = method_text(run) + change_table_header();
    for (const auto &c : run.changes) text += change_row_text(c);
    for (const auto &m : run.st.missing)
        text += "on one side only (or failed there) in some round: " + m + "\n";
    text += "verdict: " + outcome.summary + "\n";
    if (cmd.format == report::output_format::json)
        text = ab_json(run, outcome).dump(2, ' ', true) + "\n";
    write_text(text, cmd.output);
    if (!run.failure.empty()) {
        fmt::print(stderr, "ipchost ab: stopped after {} rounds: {}\n", run.st.rounds.size(),
                   run.failure);
        return platform::interrupted() ? 130 : 1;
    }
    if (run.changes.empty()) {
        fmt::print(stderr,
                   "ipchost ab: no case ran on both sides, so nothing was compared (check that "
                   "both sides find the transports: the lines above name what one side lacked)\n");
        return report::exit_gate_failed;
    }
    if (cmd.fail_on_regression < 0) return 0;
    if (!run.st.missing.empty() && !cmd.allow_missing) {
        fmt::print(
            stderr,
            "ipchost ab: {} cases ran on one side only, or failed there (--fail-on-regression; "
            "add --allow-missing to gate on what both ran)\n",
            run.st.missing.size());
        return report::exit_gate_failed;
    }
    return report_gate("ab", run.changes, outcome);
}

}  // namespace ipcbench::cli
