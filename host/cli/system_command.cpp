// `ipchost system`: what on this machine can move a figure between runs, with what to change,
// as pyperf's `system show` does. It reads and never changes anything.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/report_output.hpp"
#include "platform/machine_conditions.hpp"
#include "report/condition_checks.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

constexpr double sample_s = 1.0;

std::string text_of(const std::vector<report::condition_check> &checks,
                    const platform::machine_conditions &m) {
    std::string out = fmt::format(
        "What on this machine can move a figure between runs (rates over {:.1f} s; nothing was "
        "changed):\n\n",
        m.sample_s);
    std::size_t width = 0;
    for (const auto &c : checks) width = std::max(width, c.name.size());
    std::size_t advised = 0;
    for (const auto &c : checks) {
        out += fmt::format("  {:<{}}  {}\n", c.name, width, text::terminal_text(c.state));
        advised += c.advice.empty() ? 0 : 1;
    }
    if (advised == 0) return out + "\nNothing here is known to move figures.\n";
    out += fmt::format("\nWhat to change ({} of {}):\n", advised, checks.size());
    for (const auto &c : checks)
        if (!c.advice.empty()) out += fmt::format("  - {}: {}\n", c.name, c.advice);
    return out;
}

}  // namespace

int system_command(const command_line &cmd) {
    const auto m = platform::read_machine_conditions(sample_s);
    const auto checks = report::condition_checks(m);
    if (cmd.format == report::output_format::json) {
        nlohmann::json out = {{"conditions", report::conditions_json(m)},
                              {"checks", nlohmann::json::array()}};
        for (const auto &c : checks)
            out["checks"].push_back({{"name", c.name}, {"state", c.state}, {"advice", c.advice}});
        write_text(out.dump(2, ' ', true) + "\n", cmd.output);
        return 0;
    }
    write_text(text_of(checks, m), cmd.output);
    return 0;
}

}  // namespace ipcbench::cli
