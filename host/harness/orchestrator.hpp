#pragma once

#include "harness/case_spec.hpp"
#include "plugin/transport_info.hpp"
#include "report/case_result.hpp"

namespace ipcbench::harness {

// Runs one case between two fresh worker processes (copies of this executable): the "server"
// creates the endpoints, the "client" connects to them. Watches both: a worker that crashes,
// hangs past the watchdog or reports an error turns the case into a failed result, never into a
// crash or hang of ipchost. The run directory and every named object are removed in every path.
report::case_result run_case(const plugin::transport_info &transport, const case_spec &spec);

}  // namespace ipcbench::harness
