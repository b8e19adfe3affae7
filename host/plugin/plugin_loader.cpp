#include "plugin/plugin_loader.hpp"

#include <spdlog/spdlog.h>
#include <boost/dll/shared_library.hpp>
#include <boost/system/system_error.hpp>
#include <system_error>

#include "platform/file_identity.hpp"
#include "platform/library_dependencies.hpp"
#include "plugin/host_services.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::plugin {

class loaded_library {
public:
    loaded_library() = default;
    loaded_library(const loaded_library &) = delete;
    loaded_library &operator=(const loaded_library &) = delete;
    // The plugin's shutdown runs once before unload (transport.h); the last copy of a
    // load_outcome goes after the endpoints made from it are closed.
    ~loaded_library() {
        if (descriptor != nullptr && descriptor->shutdown != nullptr) descriptor->shutdown();
    }
    boost::dll::shared_library library;
    const ipcb_plugin *descriptor = nullptr;
};

const ipcb_plugin *descriptor_of(const loaded_library &library) {
    return library.descriptor;
}

namespace {

// The smallest tables a 1.0 plugin can have: everything up to the last 1.0 member.
constexpr std::size_t min_plugin_size = offsetof(ipcb_plugin, shutdown) + sizeof(void (*)());
constexpr std::size_t min_transport_size =
    offsetof(ipcb_transport, get_extension) + sizeof(void (*)());

std::string safe(const char *text) {
    return text ? text : "";
}

// A plugin's own text, for reports and terminals: escaped and capped.
std::string shown(const char *text, std::size_t max_chars = 80) {
    return text::printable(safe(text), max_chars);
}

// Boost.DLL's message is "load() failed (dlerror system message: WHY): <errno text>", where the
// errno text is whatever errno held (often a stale "Bad file descriptor"): keep only WHY.
std::string load_failure_text(const std::string &what) {
    const std::string marker = "(dlerror system message: ";
    const auto at = what.find(marker);
    if (at == std::string::npos) return what;
    const auto from = at + marker.size();
    auto end = what.rfind("): ");
    if (end == std::string::npos || end < from) end = what.rfind(')');
    if (end == std::string::npos || end < from) return what.substr(from);
    return what.substr(from, end - from);
}

// Option keys reach command lines, JSON keys and CSV headers: [a-z0-9_]+, at most 64.
bool is_option_key(const char *key) {
    const std::string k = safe(key);
    if (k.empty() || k.size() > 64) return false;
    for (char c : k)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

// [a-z0-9_-]+
bool is_name(const std::string &text) {
    if (text.empty()) return false;
    for (char c : text)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    return true;
}

// <plugin>.<variant>, both names
bool is_transport_id(const std::string &id, const std::string &plugin) {
    auto dot = id.find('.');
    return dot != std::string::npos && id.substr(0, dot) == plugin && is_name(plugin) &&
           is_name(id.substr(dot + 1));
}

plugin_rejection reject(const std::filesystem::path &file, const char *code, std::string reason,
                        std::string fix) {
    return plugin_rejection{file, code, std::move(reason), std::move(fix)};
}

std::optional<plugin_rejection> check_transport(const std::filesystem::path &file,
                                                const ipcb_plugin &plugin,
                                                const ipcb_transport *t) {
    const std::string rebuild = "rebuild the plugin against the ipcbench SDK 1.x header";
    if (t == nullptr)
        return reject(file, "IPCB-LOAD-006", "a transport table pointer is NULL", rebuild);
    std::string id = shown(t->id);
    if (t->struct_size < min_transport_size)
        return reject(file, "IPCB-LOAD-005",
                      "transport '" + id + "' has struct_size " + std::to_string(t->struct_size) +
                          ", ABI 1.0 needs at least " + std::to_string(min_transport_size),
                      "set struct_size = sizeof(ipcb_transport) and " + rebuild);
    if (!is_transport_id(id, safe(plugin.name)))
        return reject(file, "IPCB-LOAD-007",
                      "transport id '" + id + "' is not of the form '" + shown(plugin.name) +
                          ".<variant>' ([a-z0-9_-])",
                      "name each transport <plugin>.<variant>");
    const char *missing = !t->open             ? "open"
                          : !t->export_address ? "export_address"
                          : !t->connect        ? "connect"
                          : !t->send           ? "send"
                          : !t->recv           ? "recv"
                          : !t->close          ? "close"
                                               : nullptr;
    if (missing)
        return reject(file, "IPCB-LOAD-006",
                      "transport '" + id + "' has no '" + missing + "' function (NULL)",
                      "every transport must implement open, export_address, connect, send, recv "
                      "and close");
    if (!(t->caps & (IPCB_CAP_STREAM | IPCB_CAP_MESSAGE)) ||
        ((t->caps & IPCB_CAP_STREAM) && (t->caps & IPCB_CAP_MESSAGE)))
        return reject(file, "IPCB-LOAD-007",
                      "transport '" + id +
                          "' must set exactly one of IPCB_CAP_STREAM and "
                          "IPCB_CAP_MESSAGE",
                      "declare whether it keeps message boundaries");
    if (t->option_count > 0 && t->options == nullptr)
        return reject(file, "IPCB-LOAD-006",
                      "transport '" + id + "' declares " + std::to_string(t->option_count) +
                          " options but the options pointer is NULL",
                      rebuild);
    for (std::uint32_t i = 0; i < t->option_count; ++i) {
        if (t->options[i].key == nullptr)
            return reject(file, "IPCB-LOAD-006",
                          "transport '" + id + "' option " + std::to_string(i) + " has no key",
                          rebuild);
        if (!is_option_key(t->options[i].key))
            return reject(file, "IPCB-LOAD-012",
                          "transport '" + id + "' option key '" + shown(t->options[i].key) +
                              "' is not [a-z0-9_]+ (at most 64 characters)",
                          "name options with lower-case letters, digits and '_'");
    }
    return std::nullopt;
}

transport_info describe(const std::filesystem::path &file, const ipcb_plugin &plugin,
                        const ipcb_transport &t) {
    transport_info info;
    info.table = &t;
    info.table_size = t.struct_size;
    info.id = t.id;
    info.description = shown(t.description, 200);
    info.plugin_name = safe(plugin.name);
    info.plugin_version = shown(plugin.version, 40);
    info.caps = t.caps;
    info.max_message_size = t.max_message_size;
    info.calls = offered_calls(t);
    info.library = file;
    for (std::uint32_t i = 0; i < t.option_count; ++i)
        info.options.push_back({t.options[i].key, shown(t.options[i].default_value, 200),
                                shown(t.options[i].help, 400)});
    return info;
}

// The plugin descriptor's own promises: ABI major, size, name, transport array.
std::optional<plugin_rejection> check_descriptor(const std::filesystem::path &file,
                                                 const ipcb_plugin *plugin) {
    std::uint32_t major = IPCB_ABI_VERSION_MAJOR(plugin->abi_version);
    std::uint32_t minor = IPCB_ABI_VERSION_MINOR(plugin->abi_version);
    if (major != IPCB_ABI_MAJOR)
        return reject(file, "IPCB-LOAD-004",
                      "plugin ABI " + std::to_string(major) + "." + std::to_string(minor) +
                          ", ipchost supports " + std::to_string(IPCB_ABI_MAJOR) + ".x",
                      "rebuild the plugin against the ipcbench SDK " +
                          std::to_string(IPCB_ABI_MAJOR) + ".x header");
    if (plugin->struct_size < min_plugin_size)
        return reject(file, "IPCB-LOAD-005",
                      "plugin descriptor struct_size " + std::to_string(plugin->struct_size) +
                          ", ABI 1.0 needs at least " + std::to_string(min_plugin_size),
                      "set struct_size = sizeof(ipcb_plugin) and rebuild");
    if (!is_name(safe(plugin->name)))
        return reject(file, "IPCB-LOAD-007",
                      "plugin name '" + shown(plugin->name) + "' is not [a-z0-9_-]+",
                      "give the plugin a short lower-case name");
    if (plugin->transport_count > 0 && plugin->transports == nullptr)
        return reject(file, "IPCB-LOAD-006",
                      "transport_count is " + std::to_string(plugin->transport_count) +
                          " but transports is NULL",
                      "point transports at the array of tables");

    return std::nullopt;
}

}  // namespace

load_outcome load_plugin_file(const std::filesystem::path &file) {
    load_outcome outcome;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return {nullptr,
                {},
                {reject(file, "IPCB-LOAD-009", "not a regular file",
                        "remove it from the plugin folder")}};

    auto library = std::make_shared<loaded_library>();
    try {
        // The throwing overload keeps dlerror()'s text; the error_code one loses it.
        library->library.load(boost::dll::fs::path(file.string()),
                              boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception &e) {
        std::string why = "cannot be loaded: " + load_failure_text(e.what());
        // Boost.DLL throws std::system_error with BOOST_DLL_USE_STD_FS, boost's otherwise.
        int code = 0;
        if (const auto *std_error = dynamic_cast<const std::system_error *>(&e))
            code = std_error->code().value();
        else if (const auto *boost_error = dynamic_cast<const boost::system::system_error *>(&e))
            code = boost_error->code().value();
        if (const auto text = platform::load_error_text(code); !text.empty())
            why += " (" + text + ")";
        const auto missing = platform::missing_dependencies(file);
        for (std::size_t i = 0; i < missing.size(); ++i)
            why += (i ? ", " : "; not found: ") + text::printable(missing[i], 100);
        return {nullptr,
                {},
                {reject(file, "IPCB-LOAD-001", why,
                        std::string("check that it is a shared library for this machine and "
                                    "that every library it needs is installed (") +
                            platform::dependency_tool_hint() + ")")}};
    }
    if (!library->library.has(IPCB_PLUGIN_ENTRY_NAME))
        return {nullptr,
                {},
                {reject(file, "IPCB-LOAD-002",
                        "no '" IPCB_PLUGIN_ENTRY_NAME "' symbol: not an ipcbench "
                        "plugin",
                        "export ipcb_plugin_entry, or move the file out of the "
                        "plugin folder")}};

    auto &entry =
        library->library.get<std::remove_pointer_t<ipcb_plugin_entry_fn>>(IPCB_PLUGIN_ENTRY_NAME);
    ipcb_error error{};
    error.struct_size = sizeof error;
    const ipcb_plugin *plugin = entry(&host_services(), &error);
    if (plugin == nullptr) {
        error.message[sizeof error.message - 1] = '\0';
        return {nullptr,
                {},
                {reject(file, "IPCB-LOAD-003",
                        std::string("the plugin refused this host: ") +
                            (error.message[0] ? shown(error.message, 400) : "no reason given"),
                        "use a plugin version made for ipchost " IPCBENCH_VERSION)}};
    }
    if (auto problem = check_descriptor(file, plugin)) return {nullptr, {}, {*problem}};
    library->descriptor = plugin;
    outcome.library = library;
    for (std::uint32_t i = 0; i < plugin->transport_count; ++i) {
        const ipcb_transport *t = plugin->transports[i];
        if (auto problem = check_transport(file, *plugin, t)) {
            outcome.rejections.push_back(*problem);
            continue;
        }
        outcome.transports.push_back(describe(file, *plugin, *t));
    }
    if (outcome.transports.empty() && outcome.rejections.empty())
        outcome.rejections.push_back(reject(file, "IPCB-LOAD-010", "the plugin has no transports",
                                            "list at least one transport table"));
    return outcome;
}

}  // namespace ipcbench::plugin

namespace ipcbench::plugin {

load_outcome load_transport(const std::filesystem::path &file, const std::string &id,
                            const std::string &identity) {
    if (!identity.empty() && platform::file_identity(file) != identity)
        throw std::runtime_error("the plugin file " + file.string() +
                                 " changed after ipchost checked it (replaced or rewritten): "
                                 "not loaded; run again to check the new file");
    load_outcome outcome = load_plugin_file(file);
    std::vector<transport_info> kept;
    for (auto &t : outcome.transports)
        if (t.id == id) kept.push_back(std::move(t));
    if (kept.empty())
        throw std::runtime_error("cannot load transport " + text::printable(id, 80) + " from " +
                                 file.string() + ": " +
                                 (outcome.rejections.empty() ? "it does not provide that id"
                                                             : outcome.rejections[0].describe()));
    outcome.transports = std::move(kept);
    return outcome;
}

}  // namespace ipcbench::plugin
