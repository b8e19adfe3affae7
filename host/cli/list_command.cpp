// `ipchost --list` and `ipchost --describe ID`: what the plugin folders offer, as a table or JSON.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "kit/kit_registry.hpp"
#include "plugin/plugin_search_path.hpp"
#include "report/table_report.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {

namespace {

std::string max_size_text(const plugin::transport_info &t) {
    return t.max_message_size ? report::format_size(t.max_message_size) : "-";
}

// The ABI 1.2 models offered, as --io names them.
nlohmann::json io_models(const plugin::data_path_calls &calls) {
    nlohmann::json models = nlohmann::json::array();
    if (calls.readiness) models.push_back("readiness");
    if (calls.completion) models.push_back("completion");
    return models;
}

nlohmann::json transport_json(const plugin::transport_info &t) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto &o : t.options)
        options.push_back({{"key", o.key},
                           {"default", o.default_value.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(o.default_value)},
                           {"help", o.help}});
    return {{"id", t.id},
            {"description", t.description},
            {"plugin", {{"name", t.plugin_name}, {"version", t.plugin_version}}},
            {"capabilities", plugin::cap_names(t.caps)},
            {"max_message_size",
             t.max_message_size ? nlohmann::json(t.max_message_size) : nlohmann::json(nullptr)},
            {"calls", plugin::call_names(t.calls)},
            {"event_io", io_models(t.calls)},
            {"options", options},
            {"library", t.library.string()}};
}

nlohmann::json kit_json(const kit::kit_info &k) {
    nlohmann::json roles = nlohmann::json::array();
    for (const auto r : k.manifest.roles) roles.push_back(kit::to_string(r));
    return {{"name", k.manifest.name},
            {"language", k.manifest.language},
            {"description", k.manifest.description},
            {"runtime", k.runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.runtime)},
            {"protocol", k.manifest.protocol},
            {"roles", roles},
            {"transports", k.manifest.transports},
            {"api", k.api.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.api)},
            {"warmup_s", k.manifest.warmup_s},
            {"folder", k.folder.string()},
            {"environment_dropped", k.environment.dropped},
            {"usable", k.usable()},
            {"problem", k.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.problem)},
            {"shadowed_by",
             k.shadowed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.shadowed_by)}};
}

// What of ipchost's environment every kit's processes go without (kit/kit_environment.hpp),
// said once; what one kit's manifest adds (its runtime's options) is said under that kit.
std::vector<std::string> dropped_by_all(const kit::kit_registry &kits) {
    std::vector<std::string> common;
    bool first = true;
    for (const auto &k : kits.kits()) {
        if (!k.api.empty() || !k.usable()) continue;
        if (first) {
            common = k.environment.dropped;
            first = false;
            continue;
        }
        std::vector<std::string> kept;
        for (const auto &d : common)
            if (std::find(k.environment.dropped.begin(), k.environment.dropped.end(), d) !=
                k.environment.dropped.end())
                kept.push_back(d);
        common = std::move(kept);
    }
    return common;
}

void print_environment(const std::vector<std::string> &dropped, const std::string &indent) {
    for (const auto &d : dropped) fmt::print("{}{}\n", indent, text::printable(d, 300));
}

void print_own_dropped(const kit::kit_info &k, const std::vector<std::string> &common,
                       std::size_t w) {
    for (const auto &d : k.environment.dropped)
        if (std::find(common.begin(), common.end(), d) == common.end())
            fmt::print("{:<{}}  environment without {}\n", "", w, text::printable(d, 300));
}

// The kits: name, runtime, roles and transports; a broken kit with its reason.
void print_kits(const kit::kit_registry &kits, const std::vector<std::filesystem::path> &folders,
                bool verbose) {
    std::size_t w = 10, rw = 20;  // the name and runtime columns, as wide as their longest
    for (const auto &k : kits.kits()) {
        w = std::max(w, k.manifest.name.size());
        rw = std::max(rw, k.runtime.size());
    }
    fmt::print("\n{:<{}}  {:<{}}  {:<29}  {}\n", "kit", w, "runtime", rw, "roles", "transports");
    std::size_t shown = 0;
    const auto common = dropped_by_all(kits);
    for (const auto &k : kits.kits()) {
        if (!k.shadowed_by.empty() && !verbose) continue;
        ++shown;
        std::string roles, transports;
        for (const auto r : k.manifest.roles)
            roles += (roles.empty() ? "" : ",") + std::string(kit::to_string(r));
        for (const auto &t : k.manifest.transports)
            transports += (transports.empty() ? "" : ",") + t;
        if (!k.problem.empty()) {
            fmt::print("{:<{}}  cannot run: {}\n", k.manifest.name, w, k.problem);
            if (verbose && k.api.empty()) print_own_dropped(k, common, w);
            continue;
        }
        fmt::print("{:<{}}  {:<{}}  {:<29}  {}\n", k.manifest.name, w, k.runtime, rw, roles,
                   transports);
        if (!k.shadowed_by.empty()) fmt::print("{:<{}}  shadowed by {}\n", "", w, k.shadowed_by);
        if (k.api.empty())
            fmt::print("{:<{}}  {} ({})\n", "", w, k.manifest.language, k.folder.string());
        else if (verbose)
            fmt::print("{:<{}}  {}\n", "", w, k.manifest.description);
        if (verbose && k.api.empty()) print_own_dropped(k, common, w);
    }
    if (shown == 0) fmt::print("(no kits found; searched {})\n", folders.back().string());
    if (verbose) {
        fmt::print("\nA kit's environment: ipchost's, {}\n",
                   common.empty() ? "with nothing in it that names code"
                                  : "without (it names code, or others may write it):");
        print_environment(common, "  ");
        fmt::print("\nKit search path:\n");
        for (const auto &folder : folders) fmt::print("  {}\n", folder.string());
    }
}

}  // namespace

int list_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    const auto folders = plugin::plugin_search_path(cmd.plugin_dirs);
    const auto kit_folders = kit::kit_search_path(cmd.kit_dirs);
    kit::kit_registry kits;
    kits.scan(kit_folders);
    if (cmd.listing_json) {
        nlohmann::json doc;
        doc["ipchost_version"] = IPCBENCH_VERSION;
        doc["abi"] = fmt::format("{}.{}", IPCB_ABI_MAJOR, IPCB_ABI_MINOR);
        doc["transports"] = nlohmann::json::array();
        for (const auto &t : registry.transports()) doc["transports"].push_back(transport_json(t));
        doc["rejected"] = nlohmann::json::array();
        for (const auto &r : registry.rejections())
            doc["rejected"].push_back({{"file", r.file.string()},
                                       {"code", r.code},
                                       {"reason", r.reason},
                                       {"fix", r.fix}});
        doc["search_path"] = nlohmann::json::array();
        for (const auto &f : folders) doc["search_path"].push_back(f.string());
        doc["kits"] = nlohmann::json::array();
        for (const auto &k : kits.kits()) doc["kits"].push_back(kit_json(k));
        doc["kit_search_path"] = nlohmann::json::array();
        for (const auto &f : kit_folders) doc["kit_search_path"].push_back(f.string());
        fmt::print("{}\n", doc.dump(2, ' ', true));
        return 0;
    }
    // Columns as wide as their widest entry, so a long capability list shifts nothing.
    std::size_t id_w = 9, plugin_w = 6, caps_w = 12, size_w = 7;
    for (const auto &t : registry.transports()) {
        id_w = std::max(id_w, t.id.size());
        plugin_w = std::max(plugin_w, t.plugin_name.size() + 1 + t.plugin_version.size());
        caps_w = std::max(caps_w, plugin::describe_caps(t.caps).size());
        size_w = std::max(size_w, max_size_text(t).size());
    }
    const auto row = [&](const std::string &id, const std::string &plugin, const std::string &caps,
                         const std::string &size, const std::string &library) {
        fmt::print("{:<{}}  {:<{}}  {:<{}}  {:>{}}  {}\n", id, id_w, plugin, plugin_w, caps, caps_w,
                   size, size_w, library);
    };
    row("transport", "plugin", "capabilities", "max msg", "library");
    for (const auto &t : registry.transports()) {
        row(t.id, t.plugin_name + " " + t.plugin_version, plugin::describe_caps(t.caps),
            max_size_text(t), t.library.string());
        fmt::print("{:<{}}  {}\n", "", id_w, t.description);
    }
    if (registry.transports().empty())
        fmt::print("(no transports found; searched {} and IPCBENCH_PLUGIN_PATH)\n",
                   plugin::default_plugin_folder().string());
    if (cmd.verbose) {
        fmt::print("\nRejected files ({}):\n", registry.rejections().size());
        for (const auto &r : registry.rejections()) fmt::print("  {}\n", r.describe());
        fmt::print("\nSearch path:\n");
        for (const auto &folder : folders) fmt::print("  {}\n", folder.string());
    } else if (!registry.rejections().empty()) {
        fmt::print("\n{} file(s) rejected; see ipchost --list --verbose\n",
                   registry.rejections().size());
    }
    print_kits(kits, kit_folders, cmd.verbose);
    return 0;
}

int describe_command(const command_line &cmd, const plugin::plugin_registry &registry) {
    const auto selected = registry.select(cmd.describe);  // an id or a plugin name
    if (selected.empty()) {
        fmt::print(stderr,
                   "ipchost: error: no transport or plugin '{}'; ipchost --list shows the ids\n",
                   cmd.describe);
        return 2;
    }
    if (cmd.listing_json) {
        nlohmann::json doc = nlohmann::json::array();
        for (const auto *t : selected) doc.push_back(transport_json(*t));
        fmt::print("{}\n", doc.dump(2, ' ', true));
        return 0;
    }
    for (const auto *t : selected) {
        fmt::print(
            "{}: {}\n  plugin {} {} ({})\n  capabilities: {}\n  data path: {}\n  event I/O: "
            "{}\n  max message: {}\n",
            t->id, t->description, t->plugin_name, t->plugin_version, t->library.string(),
            plugin::describe_caps(t->caps), plugin::describe_data_path(*t),
            plugin::describe_event_io(t->calls),
            t->max_message_size ? report::format_size(t->max_message_size) : "no limit");
        if (t->options.empty()) fmt::print("  options: none\n");
        // An empty default means the plugin declares none: the option is unset unless given.
        for (const auto &o : t->options)
            fmt::print("  --opt {}\n      {}\n",
                       o.default_value.empty() ? o.key + "=VALUE (no default: unset unless given)"
                                               : o.key + "=" + o.default_value + " (default)",
                       o.help);
        if (t != selected.back()) fmt::print("\n");
    }
    return 0;
}

}  // namespace ipcbench::cli
