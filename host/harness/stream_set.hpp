#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "control/control_channel.hpp"
#include "harness/job.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::harness {

using endpoint_lookup = std::function<plugin::transport_endpoint &(int stream, std::uint32_t dir)>;

// Runs a job's streams, one thread each (two per stream for "bidir"), on the worker's side.
// Meanwhile the calling thread serves the control channel: it passes the peer's sent counts to
// the receivers, tells the orchestrator when this side's senders are done ("sent"), and sends
// live "interval" reports. Returns the figures summed over the streams, with each stream's own
// under "streams" ({"send": ..., "receive": ...} for bidir).
nlohmann::json run_streams(const job &j, const endpoint_lookup &endpoint_for,
                           control::control_channel &channel);

}  // namespace ipcbench::harness
