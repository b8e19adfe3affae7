#pragma once

#include "harness/placement_sampler.hpp"
#include "model/case_result.hpp"
#include "model/loop_result.hpp"

namespace ipcbench::harness {

// Turns what the two workers counted into a case's figures: rates over the receiver's window,
// losses as sent minus unique received, CPU per MB of the bytes each side moved, and where
// each side ran (when the sampler has samples). Every figure of a result is computed here.
void fill_throughput(report::case_result &r, const model::loop_result &sent,
                     const model::loop_result &received, const placement_sampler &placement);
void fill_latency(report::case_result &r, const model::loop_result &pinger,
                  const model::loop_result &ponger, const placement_sampler &placement);

// On a reliable transport every ping, warm-up ones included, is echoed once and the end marker
// is not (docs/worker-protocol.md, rule 4): the ponger's `echoed` is the pinger's warm-up round
// trips plus its pings. What is wrong with a ponger that says otherwise, "" when nothing is.
std::string echo_problem(const model::loop_result &pinger, const model::loop_result &ponger,
                         const std::string &ponger_name);

}  // namespace ipcbench::harness
