#pragma once

#include <string>

#include "harness/worker_pair.hpp"
#include "kit/kit_registry.hpp"
#include "model/case_settings.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::harness {

// How the side that plays `role` starts when `impl` runs it: ipchost's own worker for
// "native", else the kit's worker. Throws pair_failure naming the kit and what it lacks (not
// found, broken and why, the role or the transport not in its manifest), so the case fails
// with the reason and the run goes on.
worker_launch launch_for(const std::string &impl, kit::side_role role,
                         const plugin::transport_info &transport, const kit::kit_registry *kits);

// Why a case cannot run at all with the kits it names, or "": a kit whose manifest lacks a
// side the case needs of it (the role, the other role too for --bidir, or the transport) skips
// the case (a run reports it skipped, `check --impl` leaves the check out); a kit that cannot
// run at all is not a reason here, it fails the case (launch_for).
std::string kit_skip_reason(const plugin::transport_info &t, const model::case_settings &c,
                            const kit::kit_registry *kits);

}  // namespace ipcbench::harness
