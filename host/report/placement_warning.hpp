#pragma once

#include "report/case_result.hpp"

namespace ipcbench::report {

// A share of the timed window with both sides on one CPU from which a result says so.
constexpr double shared_cpu_warning_share = 0.2;
// ... when the two together kept at least half a core busy (CPU %, summed).
constexpr double busy_cpu_percent = 50;

// Adds a warning to r when its two processes shared a CPU for much of the timed window and the
// user did not pin them there: the scheduler's placement, not the transport, may explain a run
// many times slower (or, for ping-pong, faster) than another.
void warn_about_placement(case_result &r);

}  // namespace ipcbench::report
