#include "cli/transport_selection.hpp"

#include <algorithm>

#include "cli/usage_error.hpp"
#include "plugin/option_validation.hpp"
#include "text/suggestion.hpp"

namespace ipcbench::cli {

std::vector<const plugin::transport_info *> select_transports(
    const command_line &cmd, const plugin::plugin_registry &registry) {
    std::vector<const plugin::transport_info *> selected;
    if (cmd.plugins.empty()) {
        for (const auto &t : registry.transports()) selected.push_back(&t);
        if (selected.empty())
            throw usage_error(
                "no transport plugins found; ipchost --list --verbose shows where "
                "it looked and what it rejected");
        return selected;
    }
    for (const auto &spec : cmd.plugins) {
        auto matches = registry.select(spec);
        if (matches.empty()) {
            std::string known;
            std::vector<std::string> ids;
            for (const auto &t : registry.transports()) {
                known += (known.empty() ? "" : ", ") + t.id;
                ids.push_back(t.id);
                ids.push_back(t.id.substr(0, t.id.find('.')));  // the plugin's name too
            }
            throw usage_error("--plugin '" + spec + "': no such plugin or transport" +
                              text::did_you_mean(spec, ids) +
                              "; found: " + (known.empty() ? "none" : known));
        }
        for (const auto *t : matches)
            if (std::find(selected.begin(), selected.end(), t) == selected.end())
                selected.push_back(t);
    }
    return selected;
}

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

void check_option_values(const std::vector<const plugin::transport_info *> &selected,
                         const std::map<std::string, std::map<std::string, std::string>> &options,
                         std::uint64_t max_message_size) {
    for (const auto *t : selected) {
        const auto it = options.find(t->id);
        if (it == options.end() || it->second.empty()) continue;
        const std::string why = plugin::rejected_option_values(*t, it->second, max_message_size);
        if (!why.empty())
            throw usage_error("--opt for " + t->id + ": " + why + " (ipchost --describe " + t->id +
                              " lists what it takes)");
    }
}

std::vector<planned_case> planned_cases(
    const command_line &cmd, const std::vector<const plugin::transport_info *> &selected,
    const std::map<std::string, std::map<std::string, std::string>> &options) {
    std::vector<planned_case> out;
    for (const auto *t : selected)
        for (auto mode : cmd.modes)
            for (auto size : mode == model::measure_mode::latency ? cmd.latency_sizes : cmd.sizes)
                for (const auto &[sender_impl, receiver_impl] : cmd.implementations) {
                    planned_case c{t, settings_for_case(cmd, t->id, mode, size)};
                    const auto own = options.find(t->id);
                    if (own != options.end()) c.settings.options = own->second;
                    c.settings.sender_impl = sender_impl;
                    c.settings.receiver_impl = receiver_impl;
                    out.push_back(std::move(c));
                }
    return out;
}

}  // namespace ipcbench::cli
