#include "plugin/plugin_registry.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>

#include "platform/file_identity.hpp"
#include "platform/file_trust.hpp"
#include "platform/isolated_calls.hpp"
#include "plugin/plugin_metadata.hpp"
#include "plugin/probe_cache.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::plugin {
namespace {

#if defined(_WIN32)
constexpr const char *library_suffix = ".dll";
#else
constexpr const char *library_suffix = IPCBENCH_PLUGIN_SUFFIX;  // ".so", ".dll"
#endif

}  // namespace

void plugin_registry::scan(const std::vector<std::filesystem::path> &folders) {
    probe_cache cache;  // read once, written once, whatever the number of folders
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
        const std::string folder_problem = platform::untrusted_folder_reason(folder);
        std::vector<std::filesystem::path> trusted;
        for (const auto &file : files) {
            std::string problem = folder_problem.empty()
                                      ? platform::untrusted_reason(file)
                                      : "its folder " + folder.string() + " is " + folder_problem;
            if (problem.empty() && !seen(file)) trusted.push_back(file);
            if (problem.empty()) continue;
            reject_file({file, "IPCB-LOAD-013", "not loaded: it is " + problem,
                         "make the file, its folder and every folder above it writable only by "
                         "their owner (chmod go-w; /tmp-like sticky folders above are fine), "
                         "owned by you or root"});
        }
        probe(trusted, cache);
    }
    cache.save();
}

namespace {

// In the isolated child: load one file and send back what it offers.
constexpr const char *probe_task_name = "probe-plugin";
std::string probe_one_file(const std::string &path) {
    return metadata_to_json(load_plugin_file(path)).dump();
}
const platform::isolated_task probe_task{probe_task_name, probe_one_file};

}  // namespace

// Loading runs the library's constructors and entry point: that happens only in isolated
// children (own session, no stdio, a deadline), which send back what they found. ipchost itself
// never runs plugin code; workers load the file again for their case.
void plugin_registry::probe(const std::vector<std::filesystem::path> &files, probe_cache &cache) {
    std::vector<platform::isolated_result> results(files.size());
    std::vector<std::size_t> fresh;  // files without a cached verdict
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (auto cached = cache.find(files[i]))
            results[i] = {cached->failure, cached->output};
        else
            fresh.push_back(i);
    }
    // What each file was when it was checked; a file that changes while it is probed is not
    // the one the probe saw.
    std::vector<std::string> identities;
    identities.reserve(files.size());
    for (const auto &file : files) identities.push_back(platform::file_identity(file));
    std::vector<std::string> paths;
    paths.reserve(fresh.size());
    for (std::size_t k : fresh) paths.push_back(files[k].string());
    const auto probed =
        platform::run_isolated_task(probe_task_name, paths, probe_timeout_ms, probe_parallelism);
    for (std::size_t k = 0; k < fresh.size(); ++k) {
        results[fresh[k]] = probed[k];
        // A crash or a hang is the file's; a failed fork or pipe is this machine's moment.
        if (probed[k].failure.rfind("cannot ", 0) != 0)
            cache.store(files[fresh[k]], {probed[k].failure, probed[k].output});
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (platform::file_identity(files[i]) != identities[i]) {
            reject_file({files[i], "IPCB-LOAD-013",
                         "not loaded: it changed while ipchost checked it (replaced or rewritten)",
                         "run again once nothing writes the plugin folder"});
            continue;
        }
        if (!results[i].failure.empty()) {
            reject_file({files[i], "IPCB-LOAD-011",
                         "loading it in a child process failed: " + results[i].failure,
                         "the plugin's constructors or ipcb_plugin_entry crash or block; fix or "
                         "remove it"});
            continue;
        }
        try {
            add_outcome(files[i], metadata_from_json(text::parse_untrusted_json(results[i].output)),
                        identities[i]);
        } catch (const std::exception &e) {
            reject_file({files[i], "IPCB-LOAD-011",
                         std::string("its probe sent back unreadable metadata: ") + e.what(),
                         "report this as an ipchost bug"});
        }
    }
}

bool plugin_registry::seen(const std::filesystem::path &file) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(file, ec);
    if (ec) canonical = file;
    if (std::find(seen_.begin(), seen_.end(), canonical) != seen_.end()) return true;
    seen_.push_back(canonical);
    return false;
}

void plugin_registry::reject_file(plugin_rejection rejection) {
    spdlog::warn("{}", rejection.describe());
    rejections_.push_back(std::move(rejection));
}

void plugin_registry::add_outcome(const std::filesystem::path &file, load_outcome outcome,
                                  const std::string &identity) {
    // A cached verdict may come from a scan that named the same file by another path (a
    // relative --plugin-dir from another folder): the file is the one scanned now.
    for (auto &rejection : outcome.rejections) {
        rejection.file = file;
        reject_file(std::move(rejection));
    }
    for (auto &transport : outcome.transports) {
        transport.library = file;
        transport.library_identity = identity;
        if (const transport_info *existing = find(transport.id)) {
            reject_file({file, "IPCB-LOAD-008",
                         "transport id '" + transport.id + "' is already provided by " +
                             existing->library.string(),
                         "remove one of the two files, or rename the plugin"});
            continue;
        }
        transports_.push_back(std::move(transport));
    }
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
