#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/usage_error.hpp"
#include "harness/orchestrator.hpp"
#include "platform/signals.hpp"
#include "report/json_report.hpp"
#include "report/table_report.hpp"

namespace ipcbench::cli {
namespace {

std::vector<const plugin::transport_info *> select_transports(
    const command_line &cmd, const plugin::plugin_registry &registry) {
    std::vector<const plugin::transport_info *> selected;
    if (cmd.plugins.empty()) {
        for (const auto &t : registry.transports()) selected.push_back(&t);
        if (selected.empty())
            throw usage_error("no transport plugins found; ipchost --list --verbose shows where "
                              "it looked and what it rejected");
        return selected;
    }
    for (const auto &spec : cmd.plugins) {
        auto matches = registry.select(spec);
        if (matches.empty()) {
            std::string known;
            for (const auto &t : registry.transports()) known += (known.empty() ? "" : ", ") + t.id;
            throw usage_error("--plugin '" + spec + "': no such plugin or transport; found: " +
                              (known.empty() ? "none" : known));
        }
        for (const auto *t : matches)
            if (std::find(selected.begin(), selected.end(), t) == selected.end())
                selected.push_back(t);
    }
    return selected;
}

// --opt KEY=VALUE goes to every selected transport that declares KEY; ID:KEY=VALUE to one.
std::map<std::string, std::map<std::string, std::string>> assign_options(
    const command_line &cmd, const std::vector<const plugin::transport_info *> &selected) {
    std::map<std::string, std::map<std::string, std::string>> per_transport;
    for (const auto &assignment : cmd.option_assignments) {
        auto eq = assignment.find('=');
        std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1), scope;
        if (auto colon = key.find(':'); colon != std::string::npos) {
            scope = key.substr(0, colon);
            key = key.substr(colon + 1);
        }
        bool taken = false;
        for (const auto *t : selected) {
            if (!scope.empty() && t->id != scope) continue;
            for (const auto &o : t->options)
                if (o.key == key) {
                    per_transport[t->id][key] = value;
                    taken = true;
                }
        }
        if (!taken)
            throw usage_error("--opt '" + assignment + "': " +
                              (scope.empty() ? "no selected transport" : "transport " + scope) +
                              " takes an option '" + key +
                              "'; ipchost --describe ID lists a transport's options");
    }
    return per_transport;
}

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
    std::size_t total = selected.size() * cmd.modes.size() * cmd.sizes.size(), index = 0;
    bool failed = false;
    for (const auto *t : selected) {
        for (const auto &mode : cmd.modes) {
            for (auto size : cmd.sizes) {
                ++index;
                if (platform::interrupted()) break;
                if (t->max_message_size && size > t->max_message_size) {
                    report::case_result skipped;
                    skipped.plugin = t->plugin_name;
                    skipped.transport = t->id;
                    skipped.mode = mode;
                    skipped.message_size = size;
                    skipped.status = "skipped";
                    skipped.error = fmt::format("{} exceeds the transport's maximum of {} bytes",
                                                report::format_size(size), t->max_message_size);
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
