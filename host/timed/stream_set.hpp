#pragma once

#include <cstdint>
#include <functional>

#include "control/control_channel.hpp"
#include "model/job.hpp"
#include "model/loop_result.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::timed {

using endpoint_lookup = std::function<plugin::transport_endpoint &(int stream, std::uint32_t dir)>;

// Runs a job's streams, one thread each (two per stream for bidir), on the worker's side.
// Meanwhile the calling thread serves the control channel: it passes the peer's sent counts to
// the receivers, tells the orchestrator when this side's senders are done ("sent"), and sends
// live "interval" reports. Returns the figures summed over the streams per part (send and
// receive for bidir), with each stream's own inside.
model::worker_result run_streams(const model::job &j, const endpoint_lookup &endpoint_for,
                                 control::control_channel &channel);

}  // namespace ipcbench::timed
