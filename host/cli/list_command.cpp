#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plugin/plugin_search_path.hpp"
#include "report/table_report.hpp"

namespace ipcbench::cli {

int list_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    fmt::print("{:<18} {:<12} {:<40} {:>9}  {}\n", "transport", "plugin", "capabilities", "max msg",
               "library");
    for (const auto &t : registry.transports()) {
        fmt::print("{:<18} {:<12} {:<40} {:>9}  {}\n", t.id, t.plugin_name + " " + t.plugin_version,
                   plugin::describe_caps(t.caps),
                   t.max_message_size ? report::format_size(t.max_message_size) : "-",
                   t.library.string());
        fmt::print("{:<18} {}\n", "", t.description);
    }
    if (registry.transports().empty())
        fmt::print("(no transports found; searched {} and IPCBENCH_PLUGIN_PATH)\n",
                   plugin::default_plugin_folder().string());
    if (cmd.verbose) {
        fmt::print("\nRejected files ({}):\n", registry.rejections().size());
        for (const auto &r : registry.rejections()) fmt::print("  {}\n", r.describe());
        fmt::print("\nSearch path:\n");
        for (const auto &folder : plugin::plugin_search_path(cmd.plugin_dirs))
            fmt::print("  {}\n", folder.string());
    } else if (!registry.rejections().empty()) {
        fmt::print("\n{} file(s) rejected; see ipchost --list --verbose\n",
                   registry.rejections().size());
    }
    return 0;
}

int describe_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    const auto *t = registry.find(cmd.describe);
    if (t == nullptr) {
        fmt::print(stderr, "ipchost: error: no transport '{}'; ipchost --list shows the ids\n",
                   cmd.describe);
        return 2;
    }
    fmt::print(
        "{}: {}\n  plugin {} {} ({})\n  capabilities: {}\n  data path: {}\n  max message: "
        "{}\n",
        t->id, t->description, t->plugin_name, t->plugin_version, t->library.string(),
        plugin::describe_caps(t->caps), plugin::describe_data_path(*t),
        t->max_message_size ? report::format_size(t->max_message_size) : "no limit");
    if (t->options.empty()) fmt::print("  options: none\n");
    for (const auto &o : t->options)
        fmt::print("  --opt {}={}\n      {}\n", o.key,
                   o.default_value.empty() ? "(default: kernel/OS default)" : o.default_value,
                   o.help);
    return 0;
}

}  // namespace ipcbench::cli
