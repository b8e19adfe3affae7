#pragma once

#include <nlohmann/json.hpp>

#include "harness/job.hpp"
#include "harness/stream_progress.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::harness {

// The timed loops: the only code that runs between the clock reads of a measurement. One call
// is one stream, on its own thread. Each returns that stream's figures as JSON (with "error" set
// if the transport failed), including the CPU its thread spent in the timed phase.

// Sends warm-up messages, then the timed ones (paced when j.rate > 0), then an end marker.
nlohmann::json run_sender(plugin::transport_endpoint &out, const job &j, stream_progress &p);

// Receives until the end marker, or, for unreliable transports, until the sender's count is
// known (p.peer_sent) and the transport has gone quiet.
nlohmann::json run_receiver(plugin::transport_endpoint &in, const job &j, stream_progress &p);

// Ping-pong: the pinger times each round trip into a histogram; the ponger echoes.
nlohmann::json run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                          const job &j, stream_progress &p);
nlohmann::json run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                          const job &j, stream_progress &p);

}  // namespace ipcbench::harness
