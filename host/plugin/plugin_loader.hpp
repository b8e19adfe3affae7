#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "plugin/plugin_rejection.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

class loaded_library;

// The result of loading one file: the library (kept loaded as long as any copy of this lives),
// its valid transports, and what was rejected. A file either loads (library set, maybe with some
// transports rejected) or is rejected as a whole.
struct load_outcome {
    std::shared_ptr<loaded_library> library;
    std::vector<transport_info> transports;
    std::vector<plugin_rejection> rejections;
};

// Loads a plugin with Boost.DLL (RTLD_NOW | RTLD_LOCAL, so an unresolved symbol is an error here,
// not a crash later) and validates its descriptor and transport tables against ABI 1.
// This is where a plugin is rejected. Never throws for a bad file.
load_outcome load_plugin_file(const std::filesystem::path &file);

// Loads `file` in this process and keeps only transport `id`: what a worker does with the file
// and id the orchestrator chose. With `identity` (transport_info::library_identity) the file
// must still be the one the scan checked: one replaced or rewritten since (a rebuild, a swap)
// is refused unloaded. With its folders trusted to the root (platform/file_trust), nobody but
// root or its owner could make that change between this check and the load. Throws
// std::runtime_error naming the file and the reason. The main ipchost process never calls it:
// plugin code runs only in workers and probes.
load_outcome load_transport(const std::filesystem::path &file, const std::string &id,
                            const std::string &identity = "");

// The descriptor of a loaded library.
const ipcb_plugin *descriptor_of(const loaded_library &library);

}  // namespace ipcbench::plugin
