#pragma once

#include <functional>
#include <vector>

#include "model/case_result.hpp"
#include "model/case_settings.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::remote {
struct agent_address;
}
namespace ipcbench::kit {
class kit_registry;
}

namespace ipcbench::harness {

// Live interval reports, as they arrive: the half of the traffic (forward or reverse) and what
// its receiver counted.
using interval_sink =
    std::function<void(model::traffic_direction half, const report::interval_figures &)>;

// Runs one case between two fresh worker processes (copies of this executable): the "server"
// creates the endpoints, the "client" connects to them; with `agent`, the server side runs on
// that `ipchost serve` agent. Each local side is ipchost's own worker, or the kit its
// settings name (settings.sender_impl / receiver_impl, found in `kits`). Watches both: a worker
// that crashes, hangs past the watchdog or reports an error turns the case into a failed result,
// never into a crash or hang of ipchost. The run directory and every named object are removed in
// every path. Returns one result, or two for bidir (forward, then reverse).
std::vector<report::case_result> run_case(const plugin::transport_info &transport,
                                          const model::case_settings &settings,
                                          const remote::agent_address *agent = nullptr,
                                          const interval_sink &on_interval = nullptr,
                                          const kit::kit_registry *kits = nullptr);

// The results of a case before it ran (one, or forward and reverse for bidir): its identity,
// settings and the transport's options, status ok.
std::vector<report::case_result> blank_results(const plugin::transport_info &transport,
                                               const model::case_settings &settings);

// Why the case cannot run at all (a size over the transport's maximum; across hosts, a
// transport that cannot cross them), or "": it is skipped with that reason.
std::string reason_to_skip(const plugin::transport_info &transport,
                           const model::case_settings &settings, bool across_hosts);

// Whether the client side (the one that connects) sent this result's traffic: it pings, and
// sends a throughput case's forward half (the server sends with --reverse).
bool client_sent(const report::case_result &result);

// What an agent (never its worker or peer client: remote/agent_server) added to an answer from
// over there: the most sessions it ran while this was measured. Untrusted: a small count or 0.
int agent_sessions_of(const nlohmann::json &answer);

}  // namespace ipcbench::harness
