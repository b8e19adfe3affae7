#include "cli/change_table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/json_report.hpp"
#include "report/result_columns.hpp"
#include "stats/summary_statistics.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {

std::string case_key(const report::case_result &r, bool with_impl) {
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
        (with_impl && (c.sender_impl != "native" || c.receiver_impl != "native")
             ? fmt::format(" [{} -> {}]", c.sender_impl, c.receiver_impl)
             : ""));
}

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

std::string figure_text(double v) {
    const double a = std::fabs(v);
    if (a >= 1e4) return fmt::format("{:.0f}", v);
    if (a >= 100) return fmt::format("{:.1f}", v);
    if (a >= 1) return fmt::format("{:.3f}", v);
    return fmt::format("{:.4g}", v);
}

std::map<std::string, std::vector<double>> figure_samples(const report::case_result &r) {
    std::map<std::string, std::vector<double>> out;
    for (const auto &[figure, value] : report::comparable_figures(r)) {
        auto it = r.statistics.find(figure);
        out[figure] = it != r.statistics.end() && !it->second.second.empty()
                          ? it->second.second
                          : std::vector<double>{value};
    }
    return out;
}

namespace {

double sample_median(const std::vector<double> &v) {
    return stats::summarize(v).median;
}

std::string change_percent_text(double ratio) {
    return fmt::format("{:+.1f}", (ratio - 1) * 100);
}

}  // namespace

namespace {

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

}  // namespace

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

std::string change_table_header() {
    return fmt::format("{:<44} {:<20} {:>10} {:>10} {:>7} {:>17} {:>8}  {}\n", "case", "figure",
                       "base", "new", "ratio", "95% interval", "noise", "verdict");
}

std::string change_row_text(const report::figure_change &c) {
    const auto view = view_of(c.figure);
    const auto &e = c.estimate;
    const std::string interval =
        e.interval ? fmt::format("[{:.3f}, {:.3f}]", e.low, e.high) : std::string("none");
    std::string row =
        fmt::format("{:<44} {:<20} {:>10} {:>10} {:>7.3f} {:>17} {:>8}  {}{}\n", c.case_key,
                    view.label, figure_text(sample_median(c.base) * view.scale),
                    figure_text(sample_median(c.next) * view.scale), e.ratio, interval,
                    e.n >= 2 ? fmt::format("±{:.1f}%", report::noise_share(e.noise) * 100) : "-",
                    report::verdict_name(c.result, c.figure), c.gated ? "" : " (not gated)");
    if (!c.note.empty()) row += fmt::format("{:<46}{}\n", "", c.note);
    return row;
}

nlohmann::json change_row_json(const report::figure_change &c) {
    const auto &e = c.estimate;
    return {{"case", c.case_key},
            {"figure", c.figure},
            {"gated", c.gated},
            {"base", sample_median(c.base)},
            {"new", sample_median(c.next)},
            {"ratio", e.ratio},
            {"interval",
             e.interval ? nlohmann::json{{"low", e.low}, {"high", e.high}} : nlohmann::json()},
            {"base_samples", c.base.size()},
            {"new_samples", c.next.size()},
            {"noise_percent", report::noise_share(e.noise) * 100},
            {"p_worse", c.p_worse},
            {"p_worse_holm", c.p_worse_adjusted},
            {"change_percent", (e.ratio - 1) * 100},
            {"verdict", report::verdict_name(c.result, c.figure)},
            {"more_rounds", c.more_rounds},
            {"note", c.note}};
}

std::string change_line(const report::figure_change &c) {
    const auto view = view_of(c.figure);
    const auto &e = c.estimate;
    return fmt::format(
        "{} {}: {} -> {} ({}%{})", c.case_key, view.label,
        figure_text(sample_median(c.base) * view.scale),
        figure_text(sample_median(c.next) * view.scale), change_percent_text(e.ratio),
        e.interval ? fmt::format(", 95 % interval {} to {} %", change_percent_text(e.low),
                                 change_percent_text(e.high))
                   : "");
}

int report_gate(const char *command, const std::vector<report::figure_change> &changes,
                const report::gate_outcome &outcome) {
    fmt::print(stderr, "ipchost {}: gate {}\n", command, outcome.summary);
    for (const auto &c : changes) {
        if (!c.gated) continue;
        if (outcome.exit_code == report::exit_gate_failed && c.result == report::verdict::slower)
            fmt::print(stderr, "  slower: {}\n", change_line(c));
        if (outcome.exit_code == report::exit_inconclusive &&
            c.result == report::verdict::inconclusive)
            fmt::print(stderr, "  undecided: {}: {}\n", change_line(c), c.note);
    }
    return outcome.exit_code;
}

}  // namespace ipcbench::cli
