#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "plugin/plugin_registry.hpp"

namespace ipcbench::cli {

// The transports --plugin names (all when none), or usage_error naming what is unknown.
std::vector<const plugin::transport_info *> select_transports(
    const command_line &cmd, const plugin::plugin_registry &registry);

// --opt KEY=VALUE goes to every selected transport that declares KEY; ID:KEY=VALUE to one.
// usage_error when no selected transport takes a key.
std::map<std::string, std::map<std::string, std::string>> assign_options(
    const command_line &cmd, const std::vector<const plugin::transport_info *> &selected);

// Each selected transport with options opens once, isolated, with them: a value it refuses
// (IPCB_E_BAD_OPTION, IPCB_E_UNKNOWN_OPTION) is a usage_error with its message, before any
// worker starts.
void check_option_values(const std::vector<const plugin::transport_info *> &selected,
                         const std::map<std::string, std::map<std::string, std::string>> &options,
                         std::uint64_t max_message_size);

// One case of the command line: its transport and settings.
struct planned_case {
    const plugin::transport_info *transport = nullptr;
    model::case_settings settings;
};
// Every case the command line asks for, in the order runs take them: transport, mode, size,
// then --impl pair; `options` from assign_options.
std::vector<planned_case> planned_cases(
    const command_line &cmd, const std::vector<const plugin::transport_info *> &selected,
    const std::map<std::string, std::map<std::string, std::string>> &options);

}  // namespace ipcbench::cli
