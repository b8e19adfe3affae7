#pragma once

#include "model/job.hpp"
#include "model/loop_result.hpp"
#include "plugin/transport_endpoint.hpp"
#include "timed/stream_progress.hpp"

namespace ipcbench::timed {

using model::job;
using model::loop_result;

// The thread engine's timed loops: one call is one stream, on its own thread, with blocking
// calls. What they do next (warm-up, a timed message due, the end marker; what a pong means)
// they ask the timed side's rules (timed/timing_rules.hpp), as the event engines do
// (timed/stream_engine.hpp). Each returns that stream's figures (with `error` set if the
// transport failed), including the CPU its thread spent in the timed phase.

// Sends warm-up messages, then the timed ones (paced when the case has a rate), then an end
// marker.
loop_result run_sender(plugin::transport_endpoint &out, const job &j, stream_progress &p);

// Receives until the end marker, or, for unreliable transports, until the sender's count is
// known (p.peer_sent) and the transport has gone quiet.
loop_result run_receiver(plugin::transport_endpoint &in, const job &j, stream_progress &p);

// Ping-pong: the pinger times each round trip into a histogram; the ponger echoes.
loop_result run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                       const job &j, stream_progress &p);
loop_result run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                       const job &j, stream_progress &p);

}  // namespace ipcbench::timed
