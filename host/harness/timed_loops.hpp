#pragma once

#include <functional>
#include <nlohmann/json.hpp>

#include "harness/job.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::harness {

// The timed loops: the only code that runs between the clock reads of a measurement. Each returns
// the worker's figures as JSON for the orchestrator, with "error" set if the transport failed.

// Sends messages for the warm-up, then the timed phase, then an end marker.
nlohmann::json run_sender(plugin::transport_endpoint &out, const job &j);

// Receives until the end marker (or, for unreliable transports, until `sender_done` reports the
// sender finished and the transport has gone quiet). `sender_done` returns the sent count or -1.
nlohmann::json run_receiver(plugin::transport_endpoint &in, const job &j,
                            const std::function<std::int64_t()> &sender_done);

// Ping-pong: the pinger times each round trip into a histogram; the ponger echoes.
nlohmann::json run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                          const job &j);
nlohmann::json run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                          const job &j);

}  // namespace ipcbench::harness
