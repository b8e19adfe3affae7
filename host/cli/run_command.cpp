#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/progress_line.hpp"
#include "cli/report_output.hpp"
#include "cli/transport_selection.hpp"
#include "cli/usage_error.hpp"
#include "harness/agent_pair_case.hpp"
#include "harness/orchestrator.hpp"
#include "harness/side_launch.hpp"
#include "kit/kit_registry.hpp"
#include "model/units.hpp"
#include "platform/machine_conditions.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "remote/agent_client.hpp"
#include "remote/agent_protocol.hpp"
#include "report/case_warnings.hpp"
#include "report/csv_report.hpp"
#include "report/json_lines.hpp"
#include "report/repetition_summary.hpp"
#include "report/result_columns.hpp"
#include "text/suggestion.hpp"

namespace ipcbench::cli {
namespace {

report::case_result skipped_case(const plugin::transport_info &t,
                                 const model::case_settings &settings, std::string why) {
    report::case_result r;
    r.plugin = t.plugin_name;
    r.settings = settings;
    r.status = report::case_status::skipped;
    r.error = std::move(why);
    return r;
}

// The case's warm-up raised to what its kits declare their runtimes need (a JIT compiling the
// loop is no figure of the transport), unless --warmup was given.
model::case_settings with_kit_warmup(model::case_settings c, const kit::kit_registry *kits,
                                     bool warmup_given) {
    if (kits == nullptr || warmup_given) return c;
    for (const std::string *impl : {&c.sender_impl, &c.receiver_impl}) {
        const kit::kit_info *k = *impl == "native" ? nullptr : kits->find(*impl);
        if (k != nullptr && k->manifest.warmup_s > c.warmup_s) c.warmup_s = k->manifest.warmup_s;
    }
    return c;
}

// One result per half of the traffic from its repetitions: the repetition itself, or the
// median one with every repetition's spread and totals.
report::case_result merged(std::vector<report::case_result> repetitions, double cv_warning) {
    report::case_result r;
    if (repetitions.size() == 1) {
        r = std::move(repetitions.front());
        if (r.integrity.lost)
            r.warnings.push_back(fmt::format("{} {} lost", r.integrity.lost,
                                             r.integrity.lost == 1 ? "message" : "messages"));
        if (r.integrity.corrupted)
            r.warnings.push_back(fmt::format("{} {} corrupted", r.integrity.corrupted,
                                             r.integrity.corrupted == 1 ? "message" : "messages"));
    } else {
        r = repetitions.front();  // identity and options
        r.repetitions = std::move(repetitions);
        report::summarize_repetitions(r, cv_warning);
    }
    report::warn_about_placement(r);
    report::warn_about_missed_rate(r);
    return r;
}

// "[pipe.fifo throughput 1 KiB]   0.00-  1.00 s   1234.5 MB/s ..." while a case runs; with
// --bidir the half ("forward": client to server, "reverse") and with --repeat the repetition
// are named too.
void print_interval(const std::string &what, const model::case_settings &c,
                    model::traffic_direction half, int repetition, int repeat,
                    const report::interval_figures &i, bool first) {
    const bool latency = c.mode == model::measure_mode::latency;
    std::string label = what;
    if (c.direction == model::traffic_direction::bidir)
        label += std::string(" ") + model::to_string(half);
    if (repeat > 1) label += fmt::format(" repetition {}/{}", repetition, repeat);
    if (first && latency)  // the columns, as iperf3 heads its interval lines
        fmt::print("[{}] {:>15}  {:>12}  {:>14}\n", label, "interval", "trips/s", "mean RTT us");
    else if (first)
        fmt::print("[{}] {:>15}  {:>15}  {:>15}  {:>18}  {}\n", label, "interval", "MB/s", "Mbit/s",
                   "msg/s", "lost");
    const double per_s = model::per_second(static_cast<double>(i.messages), i.seconds);
    if (latency) {
        // Each stream waits for one pong before its next ping: a stream's mean round trip is the
        // interval over its trips.
        // No trip ended in the interval (a stall longer than it): the mean is unknown, not 0.
        const std::string mean_us =
            per_s > 0 ? fmt::format("{:.2f}", c.streams / per_s * 1e6) : std::string("-");
        fmt::print("[{}] {:6.2f}-{:6.2f} s  {:12.0f}  {:>14}\n", label, i.end_s - i.seconds,
                   i.end_s, per_s, mean_us);
    } else {
        const double bytes = static_cast<double>(i.bytes);
        fmt::print(
            "[{}] {:6.2f}-{:6.2f} s  {:10.1f} MB/s  {:8.0f} Mbit/s  {:12.0f} msg/s  lost {}\n",
            label, i.end_s - i.seconds, i.end_s,
            model::megabytes(model::per_second(bytes, i.seconds)),
            model::megabits(model::per_second(bytes, i.seconds)), per_s, i.lost);
    }
    std::fflush(stdout);
}

// What a finished case's progress line shows: its headline figure, or why it has none.
std::string key_figure(const report::case_result &r) {
    if (!r.ok()) return std::string(report::to_string(r.status));
    if (r.latency && !r.throughput)
        return fmt::format("p50 {:.1f} µs", static_cast<double>(r.latency->p50) / 1e3);
    if (r.throughput)
        return fmt::format("{:.1f} MB/s{}", model::megabytes(r.throughput->bytes_per_sec),
                           r.bidir() ? fmt::format(" ({})", model::to_string(r.direction)) : "");
    return "done";
}

// Runs every case of the command line and collects the results.
class case_runner {
public:
    case_runner(const command_line &cmd, std::size_t total, line_writer *lines,
                const kit::kit_registry *kits)
        : cmd_(cmd),
          kits_(kits),
          total_(total),
          progress_(total, !cmd.quiet, platform::stderr_is_terminal()),
          live_intervals_(cmd.case_defaults.interval_s > 0 &&
                          cmd.format == report::output_format::table),
          lines_(lines) {}

    void run(const plugin::transport_info &t, const model::case_settings &planned,
             report::run_report &report) {
        ++index_;
        const model::case_settings c = with_kit_warmup(planned, kits_, cmd_.warmup_given);
        std::string what = fmt::format("{} {} {}", t.id, model::to_string(c.mode),
                                       report::format_size(c.size_bytes));
        if (c.sender_impl != "native" || c.receiver_impl != "native")
            what += fmt::format(" ({} -> {})", c.sender_impl, c.receiver_impl);
        std::string skip = harness::reason_to_skip(t, c, cmd_.agent.has_value());
        if (skip.empty()) skip = harness::kit_skip_reason(t, c, kits_);
        if (!skip.empty()) {
            report.results.push_back(skipped_case(t, c, skip));
            if (lines_) lines_->write(report::result_line(report.results.back(), false));
            progress_.finished(index_, what, "skipped");
            return;
        }
        spdlog::debug("case {} of {}: {}", index_, total_, what);
        std::vector<std::vector<report::case_result>> halves;  // [half][repetition]
        bool headed = false;  // the interval lines' columns printed for this case
        for (int rep = 0; rep < cmd_.repeat && !platform::interrupted(); ++rep) {
            progress_.show(index_, repetition_text(what, rep));
            auto results =
                cmd_.from_agent
                    ? harness::run_case_between_agents(t, c, *cmd_.from_agent, *cmd_.agent)
                    : harness::run_case(
                          t, c, cmd_.agent ? &*cmd_.agent : nullptr,
                          [&](model::traffic_direction half, const report::interval_figures &i) {
                              if (lines_) {
                                  report::case_result running = skipped_case(t, c, "");
                                  running.direction = half;
                                  lines_->write(report::interval_line(running, rep + 1, i));
                              }
                              if (!live_intervals_) return;
                              progress_.clear();
                              const bool first = !headed;
                              headed = true;
                              print_interval(what, c, half, rep + 1, cmd_.repeat, i, first);
                          },
                          kits_);
            if (halves.empty()) halves.resize(results.size());
            for (std::size_t k = 0; k < results.size(); ++k)
                halves[k].push_back(std::move(results[k]));
            if (cmd_.precision > 0 && precise(halves)) break;
        }
        for (auto &repetitions : halves) {
            auto r = merged(std::move(repetitions), cmd_.cv_warning);
            if (cmd_.precision > 0) report::warn_if_imprecise(r, cmd_.precision);
            if (r.status == report::case_status::failed) {
                failed_ = true;
                progress_.clear();
                spdlog::error("{}: {}", what, r.error);
            }
            if (lines_) lines_->write(report::result_line(r, cmd_.per_stream_list));
            progress_.finished(index_, what, key_figure(r));
            report.results.push_back(std::move(r));
        }
    }

    void done() { progress_.clear(); }

    std::string repetition_text(const std::string &what, int rep) const {
        if (cmd_.precision > 0)
            return fmt::format("{}, repetition {} (until +/-{:g}%, at most {})", what, rep + 1,
                               cmd_.precision * 100, cmd_.repeat);
        return cmd_.repeat > 1 ? fmt::format("{}, repetition {} of {}", what, rep + 1, cmd_.repeat)
                               : what;
    }

    // --precision: every half of the case has its headline figure's median pinned down.
    bool precise(const std::vector<std::vector<report::case_result>> &halves) const {
        for (const auto &repetitions : halves)
            if (!report::precise_enough(repetitions, cmd_.precision)) return false;
        return !halves.empty();
    }
    bool failed() const { return failed_; }

private:
    const command_line &cmd_;
    const kit::kit_registry *kits_;
    std::size_t total_, index_ = 0;
    progress_line progress_;
    bool live_intervals_;
    line_writer *lines_;  // --format jsonl: each interval and result as it comes
    bool failed_ = false;
};

// The kits, when --impl names any: a name no kit folder has is a usage error (a typo); a kit
// that is there but broken fails its cases with the reason, and the rest of the run goes on.
std::string describe_folders(const std::vector<std::filesystem::path> &folders) {
    std::string out;
    for (const auto &f : folders) out += (out.empty() ? "" : ", ") + f.string();
    return out;
}

// Every name --impl takes: native, each kit and each kit:API.
std::vector<std::string> kit_names(const kit::kit_registry &kits) {
    std::vector<std::string> names = {"native"};
    for (const auto &k : kits.kits()) {
        names.push_back(k.manifest.name);
        for (const auto &api : k.manifest.apis) names.push_back(k.manifest.name + ":" + api.name);
    }
    return names;
}

std::unique_ptr<kit::kit_registry> kits_for(const command_line &cmd) {
    if (!cmd.uses_kits()) return nullptr;
    auto kits = std::make_unique<kit::kit_registry>();
    kits->scan(kit::kit_search_path(cmd.kit_dirs));
    for (const auto &pair : cmd.implementations)
        for (const auto &name : {pair.first, pair.second})
            if (name != "native" && kits->find(name) == nullptr)
                throw usage_error("--impl " + name + ": no kit of that name" +
                                  text::did_you_mean(name, kit_names(*kits)) + " in " +
                                  describe_folders(kit::kit_search_path(cmd.kit_dirs)) +
                                  " (ipchost --list shows the kits; --kit-dir DIR adds a "
                                  "folder)");
    for (const auto &k : kits->kits())
        if (!k.usable() && k.shadowed_by.empty())
            spdlog::warn("kit '{}' ({}) cannot run: {}", k.manifest.name, k.folder.string(),
                         k.problem);
    return kits;
}

}  // namespace

int run_command(const command_line &cmd, const plugin::plugin_registry &registry, int argc,
                const char *const argv[]) {
    auto selected = select_transports(cmd, registry);
    auto options = assign_options(cmd, selected);
    std::uint64_t smallest = cmd.sizes.empty() ? 8 : cmd.sizes.front();
    for (auto s : cmd.sizes) smallest = std::min(smallest, s);
    for (auto s : cmd.latency_sizes) smallest = std::min(smallest, s);
    check_option_values(selected, options, smallest);
    report::run_report report = start_report(cmd, argc, argv);
    const platform::conditions_sampler conditions;  // what moved the figures, over the run
    check_output_file(cmd.output);
    check_output_file(cmd.histogram_file);

    platform::install_interrupt_handlers();
    const auto cases = planned_cases(cmd, selected, options);
    const auto kits = kits_for(cmd);
    std::optional<line_writer> lines;
    if (cmd.format == report::output_format::jsonl) {
        lines.emplace(cmd.output);
        lines->write(report::start_line(report));
    }
    case_runner runner(cmd, cases.size(), lines ? &*lines : nullptr, kits.get());
    if (cmd.case_defaults.interval_s > 0 && cmd.format == report::output_format::table)
        fmt::print("{}Intervals as each case runs; the results follow.\n\n",
                   report::run_heading(report, false, cmd.layout));
    for (const auto &c : cases) {
        if (platform::interrupted()) break;
        runner.run(*c.transport, c.settings, report);
    }
    runner.done();
    if (cmd.agent) remote::say_goodbye(*cmd.agent);
    if (cmd.from_agent) remote::say_goodbye(*cmd.from_agent);

    report.conditions = conditions.finish();
    if (lines)
        lines->write(report::end_line(report.results.size(), platform::interrupted()));
    else
        write_report(report, cmd.format, cmd.output, cmd.layout);
    if (!cmd.histogram_file.empty())
        write_text(report::histograms_to_csv(report), cmd.histogram_file);
    if (platform::interrupted()) {
        spdlog::warn("interrupted: {} of {} cases were run; results above are partial",
                     report.results.size(), cases.size());
        return 130;
    }
    return runner.failed() ? 1 : 0;
}

}  // namespace ipcbench::cli
