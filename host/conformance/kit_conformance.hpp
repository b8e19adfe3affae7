#pragma once

// `ipchost check --impl KIT`: whether a kit keeps the worker protocol and the data plane
// (docs/worker-protocol.md). Two groups of checks:
//   - data: cases between the kit and ipchost's native worker on each transport both offer, the
//     kit on either side: every payload byte checked (--verify), exact counts on reliable
//     transports, message boundaries across cut reads (64 KiB messages), latency round trips,
//     several streams, paced sends and a duration-bounded run ended by the end marker;
//   - protocol: the orchestrator's side of a session played by hand against the kit's worker: a
//     version it did not offer, a message before the welcome, an unknown message, a malformed
//     field, a garbage frame, the orchestrator going away, a connect that cannot succeed.
// A kit that miscounts or misreports fails the check by name and the figure it got wrong.

#include <functional>
#include <vector>

#include "conformance/conformance_suite.hpp"
#include "kit/kit_registry.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::conformance {

std::vector<check_result> run_kit_conformance(
    const kit::kit_registry &kits, const kit::kit_info &k,
    const std::vector<const plugin::transport_info *> &transports,
    const std::function<void(const check_result &)> &report);

}  // namespace ipcbench::conformance
