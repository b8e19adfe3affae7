#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <chrono>
#include <ctime>
#include <fstream>

#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "cli/transport_selection.hpp"
#include "cli/usage_error.hpp"
#include "harness/orchestrator.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "remote/agent_client.hpp"
#include "remote/agent_protocol.hpp"
#include "report/csv_report.hpp"
#include "report/result_columns.hpp"

#include <optional>

namespace ipcbench::cli {
namespace {

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// "case 3 of 24, 12 s elapsed, about 84 s left" on one refreshed stderr line.
class progress_line {
public:
    progress_line(std::size_t total, bool enabled)
        : total_(total), enabled_(enabled), start_(platform::now_ns()) {}
    void show(std::size_t index, const std::string &what) {
        if (!enabled_) return;
        const double elapsed = (platform::now_ns() - start_) / 1e9;
        std::string left = index > 1 ? fmt::format(", about {:.0f} s left",
                                                   elapsed / (index - 1) * (total_ - index + 1))
                                     : "";
        fmt::print(stderr, "\r\033[K[{}/{}] {}, {:.0f} s elapsed{}", index, total_, what, elapsed,
                   left);
        std::fflush(stderr);
    }
    void clear() {
        if (enabled_) fmt::print(stderr, "\r\033[K");
    }

private:
    std::size_t total_;
    bool enabled_;
    std::int64_t start_;
};

report::case_result skipped_case(const plugin::transport_info &t, const std::string &mode,
                                 std::uint64_t size) {
    report::case_result r;
    r.plugin = t.plugin_name;
    r.transport = t.id;
    r.mode = mode;
    r.message_size = size;
    r.status = "skipped";
    r.error = fmt::format(
        "{} exceeds the transport's maximum of {} bytes (ipchost --describe {} says where it "
        "comes from)",
        report::format_size(size), t.max_message_size, t.id);
    return r;
}

}  // namespace

int run_command(const command_line &cmd, const plugin::plugin_registry &registry, int argc,
                const char *const argv[]) {
    auto selected = select_transports(cmd, registry);
    auto options = assign_options(cmd, selected);

    report::run_report report;
    report.environment = platform::read_system_info();
    report.started_at = utc_now();
    for (int i = 0; i < argc; ++i) report.command_line += (i ? " " : "") + std::string(argv[i]);
    report.duration_s = cmd.duration_s;
    report.warmup_s = cmd.warmup_s;
    report.count = cmd.count;
    report.repeat = cmd.repeat;
    check_output_file(cmd.output);
    check_output_file(cmd.histogram_file);

    std::optional<remote::peer_agent> peer;
    if (!cmd.peer.empty()) {
        peer = remote::peer_agent{remote::parse_host_port(cmd.peer, remote::default_port),
                                  cmd.token, cmd.data_port_first, cmd.data_port_last};
        report.peer = peer->address.text();
    }

    platform::install_interrupt_handlers();
    std::size_t total = 0, index = 0;
    for (const auto &mode : cmd.modes)
        total += selected.size() * (mode == "latency" ? cmd.latency_sizes : cmd.sizes).size();
    progress_line progress(total, !cmd.quiet && platform::stderr_is_terminal());
    const bool live_intervals = cmd.interval_s > 0 && cmd.format == "table";
    bool failed = false;
    for (const auto *t : selected) {
        for (const auto &mode : cmd.modes) {
            for (auto size : mode == "latency" ? cmd.latency_sizes : cmd.sizes) {
                if (platform::interrupted()) break;
                ++index;
                if (t->max_message_size && size > t->max_message_size) {
                    report.results.push_back(skipped_case(*t, mode, size));
                    continue;
                }
                if (peer && !t->has(IPCB_CAP_CROSS_HOST)) {
                    auto skipped = skipped_case(*t, mode, size);
                    skipped.error = t->id +
                                    " cannot cross hosts (no cross-host capability); "
                                    "--peer runs only transports that can";
                    report.results.push_back(std::move(skipped));
                    continue;
                }
                harness::case_spec spec;
                spec.transport_id = t->id;
                spec.mode = mode;
                spec.direction = cmd.direction;
                spec.size = size;
                spec.duration_s = cmd.duration_s;
                spec.warmup_s = cmd.warmup_s;
                spec.count = cmd.count;
                spec.timeout_s = cmd.timeout_s;
                spec.streams = cmd.streams;
                spec.rate = mode != "throughput" ? 0
                            : cmd.bitrate > 0    ? cmd.bitrate / (8.0 * static_cast<double>(size))
                                                 : cmd.rate;
                spec.verify = cmd.verify;
                spec.batch = mode == "throughput" ? cmd.batch : 1;
                spec.zero_copy = cmd.zero_copy;
                spec.interval_s = cmd.interval_s;
                spec.sender_cpu = cmd.sender_cpu;
                spec.receiver_cpu = cmd.receiver_cpu;
                spec.options = options[t->id];
                spec.peer = peer ? &*peer : nullptr;
                const std::string what =
                    fmt::format("{} {} {}", t->id, mode, report::format_size(size));
                spdlog::debug("case {} of {}: {}", index, total, what);

                std::vector<report::case_result> merged;
                for (int rep = 0; rep < cmd.repeat && !platform::interrupted(); ++rep) {
                    progress.show(index, cmd.repeat > 1 ? fmt::format("{}, repetition {} of {}",
                                                                      what, rep + 1, cmd.repeat)
                                                        : what);
                    auto results = harness::run_case(
                        *t, spec,
                        [&](const std::string &direction, const report::interval_figures &i) {
                            if (!live_intervals) return;
                            progress.clear();
                            fmt::print(
                                "[{} {} {}] {:6.2f}-{:6.2f} s  {:10.1f} MB/s  {:8.0f} "
                                "Mbit/s  {:12.0f} msg/s  lost {}\n",
                                what, direction, rep + 1, i.end_s - i.seconds, i.end_s,
                                i.bytes / i.seconds / 1e6, i.bytes * 8 / i.seconds / 1e6,
                                i.messages / i.seconds, i.lost);
                            std::fflush(stdout);
                        });
                    if (merged.empty()) merged.resize(results.size());
                    for (std::size_t k = 0; k < results.size(); ++k)
                        merged[k].repetitions.push_back(std::move(results[k]));
                }
                for (auto &m : merged) {
                    report::case_result r;
                    if (m.repetitions.size() == 1) {
                        r = std::move(m.repetitions.front());
                        if (r.integrity.lost)
                            r.warnings.push_back(fmt::format("{} messages lost", r.integrity.lost));
                        if (r.integrity.corrupted)
                            r.warnings.push_back(
                                fmt::format("{} messages corrupted", r.integrity.corrupted));
                    } else {
                        r = m.repetitions.front();  // identity and options
                        r.repetitions = std::move(m.repetitions);
                        report::summarize_repetitions(r, cmd.cv_warning);
                    }
                    if (r.status == "failed") {
                        failed = true;
                        progress.clear();
                        spdlog::error("{}: {}", what, r.error);
                    }
                    report.results.push_back(std::move(r));
                }
            }
        }
    }
    progress.clear();
    if (peer) remote::say_goodbye(*peer);

    write_report(report, cmd.format, cmd.output);
    if (!cmd.histogram_file.empty()) {
        write_text(report::histograms_to_csv(report), cmd.histogram_file);
    }
    if (platform::interrupted()) {
        spdlog::warn("interrupted: {} of {} cases were run; results above are partial",
                     report.results.size(), total);
        return 130;
    }
    return failed ? 1 : 0;
}

}  // namespace ipcbench::cli
