#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plugin/plugin_registry.hpp"

namespace ipcbench::harness {

// A case's run directory names, in its manifest, the OS objects its creator made outside it
// (System V and POSIX queues, shared memory) as soon as they exist, so that whoever finds the
// directory after its ipchost died (SIGKILL) can remove them.
void write_run_manifest(const std::filesystem::path &run_dir, const std::string &transport_id,
                        const std::vector<std::string> &addresses);

// Removes the run directories of this user's ipchost processes that are gone, and the objects
// their manifests name, with the transport's remove_address (isolated, from this host's own
// registry: the manifest names a transport id, never a library). Returns one line per directory
// removed (and per object that could not be).
std::vector<std::string> clean_stale_runs(const plugin::plugin_registry &registry);

}  // namespace ipcbench::harness
