#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/transport_selection.hpp"
#include "cli/usage_error.hpp"
#include "harness/orchestrator.hpp"
#include "platform/signals.hpp"
#include "report/json_report.hpp"
#include "report/table_report.hpp"

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

    std::ofstream file;
    if (!cmd.output.empty()) {
        file.open(cmd.output);
        if (!file)
            throw usage_error("--output '" + cmd.output + "': cannot open for writing");
    }

    platform::install_interrupt_handlers();
    std::size_t total = 0, index = 0;
    for (const auto &mode : cmd.modes)
        total += selected.size() * (mode == "latency" ? cmd.latency_sizes : cmd.sizes).size();
    bool failed = false;
    for (const auto *t : selected) {
        for (const auto &mode : cmd.modes) {
            for (auto size : mode == "latency" ? cmd.latency_sizes : cmd.sizes) {
                ++index;
                if (platform::interrupted()) break;
                if (t->max_message_size && size > t->max_message_size) {
                    report::case_result skipped;
                    skipped.plugin = t->plugin_name;
                    skipped.transport = t->id;
                    skipped.mode = mode;
                    skipped.message_size = size;
                    skipped.status = "skipped";
                    skipped.error = fmt::format(
                        "{} exceeds the transport's maximum of {} bytes (ipchost --describe {} "
                        "says where it comes from)",
                        report::format_size(size), t->max_message_size, t->id);
                    spdlog::info("[{}/{}] {} {} {}: skipped, {}", index, total, t->id, mode,
                                 report::format_size(size), skipped.error);
                    report.results.push_back(std::move(skipped));
                    continue;
                }
                harness::case_spec spec;
                spec.transport_id = t->id;
                spec.mode = mode;
                spec.size = size;
                spec.duration_s = cmd.duration_s;
                spec.warmup_s = cmd.warmup_s;
                spec.count = cmd.count;
                spec.timeout_s = cmd.timeout_s;
                spec.options = options[t->id];
                spdlog::info("[{}/{}] {} {} {}", index, total, t->id, mode,
                             report::format_size(size));
                auto result = harness::run_case(*t, spec);
                if (result.status == "failed") {
                    failed = true;
                    spdlog::error("{} {} {}: {}", t->id, mode, report::format_size(size),
                                  result.error);
                }
                report.results.push_back(std::move(result));
            }
        }
    }

    std::string text = cmd.format == "json" ? report::to_json(report).dump(2) + "\n"
                                            : report::to_table(report);
    if (file.is_open())
        file << text;
    else
        fmt::print("{}", text);
    if (platform::interrupted()) {
        spdlog::warn("interrupted: {} of {} cases were run; results above are partial",
                     report.results.size(), total);
        return 130;
    }
    return failed ? 1 : 0;
}

}  // namespace ipcbench::cli
