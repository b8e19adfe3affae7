#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plugin/plugin_loader.hpp"

namespace ipcbench::plugin {

// All plugins found in the plugin folders, in search order: the first file providing an id wins.
class plugin_registry {
public:
    // Loads every *.so (*.dll on Windows) in each folder, in order. Rejected files are recorded,
    // never fatal.
    void scan(const std::vector<std::filesystem::path> &folders);
    void add_file(const std::filesystem::path &file);

    const std::vector<transport_info> &transports() const { return transports_; }
    const std::vector<plugin_rejection> &rejections() const { return rejections_; }
    const transport_info *find(const std::string &id) const;
    // `spec` is a transport id ("pipe.fifo") or a plugin name ("pipe": all its transports).
    // Empty when nothing matches.
    std::vector<const transport_info *> select(const std::string &spec) const;

private:
    std::vector<std::shared_ptr<loaded_library>> libraries_;
    std::vector<transport_info> transports_;
    std::vector<plugin_rejection> rejections_;
    std::vector<std::filesystem::path> seen_;
};

}  // namespace ipcbench::plugin
