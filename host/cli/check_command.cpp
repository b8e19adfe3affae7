// `ipchost check --plugin ID`: the conformance suite, one line per check.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.hpp"
#include "cli/transport_selection.hpp"
#include "conformance/conformance_suite.hpp"
#include "conformance/kit_conformance.hpp"
#include "kit/kit_registry.hpp"
#include "platform/signals.hpp"

namespace ipcbench::cli {

namespace {

void print_check(const conformance::check_result &r) {
    fmt::print("{} {:<18} {:<19} {}\n",
               r.skipped  ? "SKIP"
               : r.passed ? "PASS"
                          : "FAIL",
               r.transport, r.name, r.detail);
    std::fflush(stdout);
}

// check --impl KIT: the kit against the native worker on each transport both offer, in both
// directions, and its worker's answers to a hand-played session (conformance/kit_conformance).
int check_kits(const command_line &cmd,
               const std::vector<const plugin::transport_info *> &selected) {
    kit::kit_registry kits;
    kits.scan(kit::kit_search_path(cmd.kit_dirs));
    std::vector<std::string> names;
    for (const auto &[sender, receiver] : cmd.implementations)
        for (const auto &n : {sender, receiver})
            if (n != "native" && std::find(names.begin(), names.end(), n) == names.end())
                names.push_back(n);
    int passed = 0, failed = 0, skipped = 0;
    for (const auto &name : names) {
        const kit::kit_info *k = kits.find(name);
        if (k == nullptr || !k->usable()) {
            fmt::print(
                "FAIL {:<18} {:<19} {}\n", name, "kit",
                k == nullptr ? "no kit of that name (ipchost --list shows the kits)" : k->problem);
            ++failed;
            continue;
        }
        fmt::print("# kit {} ({}, {})\n", name, k->runtime, k->folder.string());
        conformance::run_kit_conformance(kits, *k, selected, [&](const auto &r) {
            (r.skipped ? skipped : r.passed ? passed : failed)++;
            print_check(r);
        });
    }
    if (skipped > 0)
        fmt::print("{} passed, {} failed, {} not run (sides the kit's manifest does not take)\n",
                   passed, failed, skipped);
    else
        fmt::print("{} passed, {} failed\n", passed, failed);
    if (platform::interrupted()) return 130;
    return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace

int check_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    auto selected = select_transports(cmd, registry);
    if (cmd.uses_kits()) {
        platform::install_interrupt_handlers();
        return check_kits(cmd, selected);
    }
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
                print_check(r);
            },
            cmd.case_defaults.timeout_s);
    }
    fmt::print("{} passed, {} failed\n", passed, failed);
    if (platform::interrupted()) return 130;
    return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace ipcbench::cli
