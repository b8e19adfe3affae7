#include "plugin/probe_cache.hpp"

#include <spdlog/spdlog.h>
#include <cstdlib>
#include <fstream>
#include <random>

#include "platform/child_process.hpp"
#include "platform/file_identity.hpp"
#include "platform/private_file.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::plugin {

namespace {
constexpr std::size_t max_entries = 4096;  // a bound on the file, whatever the folders hold
}

probe_cache::probe_cache() {
    const char *setting = std::getenv("IPCBENCH_PROBE_CACHE");
    if (setting && std::string(setting) == "0") return;
    try {
        path_ = platform::user_state_dir() / "probe-cache.json";
    } catch (const std::exception &e) {
        spdlog::debug("probe cache off: {}", e.what());
        return;
    }
    // A new ipchost may judge plugins differently: its own identity is part of every key.
    host_stamp_ = std::string(IPCBENCH_VERSION) + "@" +
                  platform::file_identity(platform::self_executable_path());
    enabled_ = true;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    try {
        auto document = text::parse_untrusted_json_file(path_, std::size_t{16} << 20);
        if (document.is_object()) entries_ = std::move(document);
    } catch (const std::exception &e) {
        spdlog::debug("probe cache {} unreadable, starting afresh: {}", path_.string(), e.what());
    }
}

std::string probe_cache::key(const std::filesystem::path &file) const {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(file, ec);
    const std::string identity = platform::file_identity(file);
    if (identity.empty()) return "";
    return (ec ? file : canonical).string() + "|" + identity + "|" + host_stamp_;
}

std::optional<probe_cache::verdict> probe_cache::find(const std::filesystem::path &file) const {
    if (!enabled_) return std::nullopt;
    const auto it = entries_.find(key(file));
    if (it == entries_.end() || !it->is_object()) return std::nullopt;
    const auto failure = it->find("failure"), output = it->find("output");
    if (failure == it->end() || output == it->end() || !failure->is_string() ||
        !output->is_string())
        return std::nullopt;
    return verdict{failure->get<std::string>(), output->get<std::string>()};
}

void probe_cache::store(const std::filesystem::path &file, const verdict &v) {
    const std::string k = key(file);
    if (!enabled_ || k.empty()) return;
    // Entries of files that changed since are dead weight: keep only this path's newest.
    const std::string prefix = k.substr(0, k.find('|') + 1);
    for (auto it = entries_.begin(); it != entries_.end();)
        it = it.key().rfind(prefix, 0) == 0 ? entries_.erase(it) : std::next(it);
    if (entries_.size() >= max_entries) entries_.erase(entries_.begin());
    entries_[k] = {{"failure", v.failure}, {"output", v.output}};
    changed_ = true;
}

void probe_cache::save() const {
    if (!enabled_ || !changed_) return;
    // Written aside and renamed over: a concurrent ipchost reads the old file or the new one.
    std::filesystem::path aside = path_;
    aside += ".tmp-" + std::to_string(std::random_device{}());
    try {
        platform::write_private_file(aside, entries_.dump() + "\n");
        std::filesystem::rename(aside, path_);
    } catch (const std::exception &e) {
        std::error_code ignored;
        std::filesystem::remove(aside, ignored);
        spdlog::debug("probe cache not saved: {}", e.what());
    }
}

}  // namespace ipcbench::plugin
