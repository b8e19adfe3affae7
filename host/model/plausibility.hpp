#pragma once

#include <string>
#include <vector>

#include "model/case_result.hpp"

namespace ipcbench::model {

// Figures no measurement can have produced: a rate beyond what any link or memory carries
// (2 TB/s, 10^10 messages/s), a negative, infinite or NaN figure, percentiles out of order. A
// worker or an agent that reports them is broken or hostile: its row is marked failed with the
// reason instead of being reported as ok (applied to every case, and to what an agent's peer
// client sends back). "" when the figures are possible.
inline constexpr double max_plausible_bytes_per_sec = 2e12;
inline constexpr double max_plausible_messages_per_sec = 1e10;
std::string implausible_figures(const case_result &r);

// Marks every result whose figures are impossible (status failed, the reason naming `source`:
// "the agent at 10.0.0.5:7451", "the workers").
void mark_implausible(std::vector<case_result> &results, const std::string &source);

}  // namespace ipcbench::model
