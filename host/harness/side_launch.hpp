#pragma once

#include <string>

#include "harness/worker_pair.hpp"
#include "kit/kit_registry.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::harness {

// How the side that plays `role` starts when `impl` runs it: ipchost's own worker for
// "native", else the kit's worker. Throws pair_failure naming the kit and what it lacks (not
// found, broken and why, the role or the transport not in its manifest), so the case fails
// with the reason and the run goes on.
worker_launch launch_for(const std::string &impl, kit::side_role role,
                         const plugin::transport_info &transport, const kit::kit_registry *kits);

}  // namespace ipcbench::harness
