// `ipchost check --plugin ID`: the conformance suite, one line per check.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/transport_selection.hpp"
#include "conformance/conformance_suite.hpp"
#include "platform/signals.hpp"

namespace ipcbench::cli {

int check_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    auto selected = select_transports(cmd, registry);
    auto options = assign_options(cmd, selected);
    check_option_values(selected, options, 4096);
    platform::install_interrupt_handlers();
    int passed = 0, failed = 0;
    for (const auto *t : selected) {
        if (platform::interrupted()) break;
        fmt::print("# {} ({} {}, {})\n", t->id, t->plugin_name, t->plugin_version,
                   t->library.string());
        std::fflush(stdout);
        conformance::run_conformance(
            *t, options[t->id],
            [&](const conformance::check_result &r) {
                (r.passed ? passed : failed)++;
                fmt::print("{} {:<18} {:<19} {}\n", r.passed ? "PASS" : "FAIL", r.transport, r.name,
                           r.detail);
                std::fflush(stdout);
            },
            cmd.case_defaults.timeout_s);
    }
    fmt::print("{} passed, {} failed\n", passed, failed);
    if (platform::interrupted()) return 130;
    return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace ipcbench::cli
