#pragma once

#include "cli/command_line.hpp"
#include "plugin/plugin_registry.hpp"

namespace ipcbench::cli {

// Each returns the process exit code.
int list_command(const command_line &cmd, const plugin::plugin_registry &registry);
int describe_command(const command_line &cmd, const plugin::plugin_registry &registry);
int compare_command(const command_line &cmd);
int ab_command(const command_line &cmd);
int trend_command(const command_line &cmd);
int system_command(const command_line &cmd);
int new_plugin_command(const command_line &cmd);
int report_command(const command_line &cmd);
int check_command(const command_line &cmd, const plugin::plugin_registry &registry);
int fleet_command(const command_line &cmd, const plugin::plugin_registry &registry, int argc,
                  const char *const argv[]);
int run_command(const command_line &cmd, const plugin::plugin_registry &registry, int argc,
                const char *const argv[]);

}  // namespace ipcbench::cli
