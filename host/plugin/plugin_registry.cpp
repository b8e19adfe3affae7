#include "plugin/plugin_registry.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>

#include "platform/isolated_calls.hpp"

namespace ipcbench::plugin {
namespace {

#if defined(_WIN32)
constexpr const char *library_suffix = ".dll";
#else
constexpr const char *library_suffix = ".so";
#endif

}  // namespace

void plugin_registry::scan(const std::vector<std::filesystem::path> &folders) {
    for (const auto &folder : folders) {
        std::error_code ec;
        std::vector<std::filesystem::path> files;
        for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
             it.increment(ec))
            if (it->path().extension() == library_suffix) files.push_back(it->path());
        if (ec) {
            spdlog::debug("plugin folder {}: {}", folder.string(), ec.message());
            continue;
        }
        std::sort(files.begin(), files.end());
        // Loading runs the library's constructors and entry point: try them in a child process
        // first, so a plugin that crashes or hangs there is rejected instead of taking ipchost
        // down. One fork for the whole folder; a crash costs one more.
        auto failures = platform::run_isolated(
            files.size(), [&](std::size_t i) { load_plugin_file(files[i]); }, 5000);
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (failures[i].empty()) {
                add_file(files[i]);
                continue;
            }
            plugin_rejection crashed{files[i], "IPCB-LOAD-011",
                                     "loading it in a child process failed: " + failures[i],
                                     "the plugin's constructors or ipcb_plugin_entry crash or "
                                     "block; fix or remove it"};
            spdlog::warn("{}", crashed.describe());
            rejections_.push_back(std::move(crashed));
        }
    }
}

void plugin_registry::add_file(const std::filesystem::path &file) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(file, ec);
    if (ec) canonical = file;
    if (std::find(seen_.begin(), seen_.end(), canonical) != seen_.end()) return;
    seen_.push_back(canonical);

    load_outcome outcome = load_plugin_file(file);
    for (auto &rejection : outcome.rejections) {
        spdlog::warn("{}", rejection.describe());
        rejections_.push_back(std::move(rejection));
    }
    if (!outcome.library) return;
    bool kept = false;
    for (auto &transport : outcome.transports) {
        if (const transport_info *existing = find(transport.id)) {
            plugin_rejection duplicate{file, "IPCB-LOAD-008",
                                       "transport id '" + transport.id +
                                           "' is already provided by " + existing->library.string(),
                                       "remove one of the two files, or rename the plugin"};
            spdlog::warn("{}", duplicate.describe());
            rejections_.push_back(std::move(duplicate));
            continue;
        }
        transports_.push_back(std::move(transport));
        kept = true;
    }
    // A library stays loaded while any of its tables may be used, and until exit otherwise:
    // unloading code that might still be referenced is the classic plugin crash.
    libraries_.push_back(outcome.library);
    (void)kept;
}

const transport_info *plugin_registry::find(const std::string &id) const {
    for (const auto &t : transports_)
        if (t.id == id) return &t;
    return nullptr;
}

std::vector<const transport_info *> plugin_registry::select(const std::string &spec) const {
    std::vector<const transport_info *> selected;
    if (const transport_info *exact = find(spec)) {
        selected.push_back(exact);
        return selected;
    }
    for (const auto &t : transports_)
        if (t.plugin_name == spec) selected.push_back(&t);
    return selected;
}

}  // namespace ipcbench::plugin
