#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/case_result.hpp"

namespace ipcbench::harness {

// The figures that still read at thousands of streams, once the per-stream ones are in r
// (fill_throughput, fill_latency): the spread of stream throughput with Jain's index, the
// connector's set-up of its connections (rate, latency percentiles), and each process's RSS per
// stream. *_setup are what the workers said in "connected" (null: not said); checked here, as
// they may come from an agent. Only for cases with more than one stream.
void fill_scale(report::case_result &r, const nlohmann::json &sender_setup,
                const nlohmann::json &receiver_setup, const nlohmann::json &connector_setup);

}  // namespace ipcbench::harness
