#pragma once

#include <functional>
#include <vector>

#include "harness/case_spec.hpp"
#include "plugin/transport_info.hpp"
#include "report/case_result.hpp"

namespace ipcbench::harness {

// Live interval reports, as they arrive (direction: "forward" or "reverse").
using interval_sink =
    std::function<void(const std::string &direction, const report::interval_figures &)>;

// Runs one case between two fresh worker processes (copies of this executable): the "server"
// creates the endpoints, the "client" connects to them. Watches both: a worker that crashes,
// hangs past the watchdog or reports an error turns the case into a failed result, never into a
// crash or hang of ipchost. The run directory and every named object are removed in every path.
// Returns one result, or two for bidir (forward, then reverse).
std::vector<report::case_result> run_case(const plugin::transport_info &transport,
                                          const case_spec &spec,
                                          const interval_sink &on_interval = nullptr);

}  // namespace ipcbench::harness
