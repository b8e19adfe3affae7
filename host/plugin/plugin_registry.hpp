#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plugin/plugin_loader.hpp"
#include "plugin/probe_cache.hpp"

namespace ipcbench::plugin {

// All plugins found in the plugin folders, in search order: the first file providing an id wins.
// Metadata only: the main ipchost process learns what each file offers from an isolated probe
// child and never loads plugin code itself (transport_info::table stays null here; a worker
// loads the file with load_transport).
class plugin_registry {
public:
    // Probes every *.so (*.dll on Windows) in each folder, in order, up to probe_parallelism at
    // once. Files writable by other users, or in such a folder, are refused unloaded. Rejected
    // files are recorded, never fatal.
    void scan(const std::vector<std::filesystem::path> &folders);

    const std::vector<transport_info> &transports() const { return transports_; }
    const std::vector<plugin_rejection> &rejections() const { return rejections_; }
    const transport_info *find(const std::string &id) const;
    // `spec` is a transport id ("pipe.fifo") or a plugin name ("pipe": all its transports).
    // Empty when nothing matches.
    std::vector<const transport_info *> select(const std::string &spec) const;

    static constexpr int probe_timeout_ms = 5000;
    static constexpr int probe_parallelism = 4;

private:
    void probe(const std::vector<std::filesystem::path> &files, probe_cache &cache);
    bool seen(const std::filesystem::path &file);  // true if already scanned; records it
    void reject_file(plugin_rejection rejection);
    void add_outcome(const std::filesystem::path &file, load_outcome outcome,
                     const std::string &identity);

    std::vector<transport_info> transports_;
    std::vector<plugin_rejection> rejections_;
    std::vector<std::filesystem::path> seen_;
};

}  // namespace ipcbench::plugin
