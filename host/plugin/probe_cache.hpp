#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ipcbench::plugin {

// Verdicts of earlier probes, so a slow or hanging plugin costs its deadline once, not on every
// run: per file, keyed by its identity (platform/file_identity) and this ipchost's own, the
// metadata a probe sent back or why it failed. Kept in the user's private state folder
// (probe-cache.json, 0600). IPCBENCH_PROBE_CACHE=0 turns it off (a plugin whose loading depends
// on the environment; the test suite).
class probe_cache {
public:
    probe_cache();  // loads the cache file if enabled and readable
    bool enabled() const { return enabled_; }

    struct verdict {
        std::string failure;  // "" when the probe returned
        std::string output;   // its metadata JSON
    };
    std::optional<verdict> find(const std::filesystem::path &file) const;
    void store(const std::filesystem::path &file, const verdict &v);
    void save() const;  // writes it back if anything was stored; never throws

private:
    std::string key(const std::filesystem::path &file) const;

    bool enabled_ = false;
    bool changed_ = false;
    std::string host_stamp_;
    std::filesystem::path path_;
    nlohmann::json entries_ = nlohmann::json::object();
};

}  // namespace ipcbench::plugin
