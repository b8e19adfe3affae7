#pragma once

#include "model/case_result.hpp"

namespace ipcbench::report {

// A share of the timed window with both sides on one CPU from which a result says so.
constexpr double shared_cpu_warning_share = 0.2;
// ... when the two together kept at least half a core busy (CPU %, summed).
constexpr double busy_cpu_percent = 50;

// What the warning advises, the same for every case: the table prints it once under all of them.
inline constexpr const char *placement_advice =
    "the scheduler put them on one core, and runs placed otherwise can differ several times over "
    "(slower for streaming, often faster for ping-pong on a VM); --affinity fixes the placement "
    "(0,1 apart, 0,0 together)";

// Adds a warning to r when its two processes shared a CPU for much of the timed window and the
// user did not pin them there: the scheduler's placement, not the transport, may explain a run
// many times slower (or, for ping-pong, faster) than another.
void warn_about_placement(case_result &r);

// A paced case whose receivers got less than this share of the rate asked says so.
constexpr double missed_rate_share = 0.95;

// Adds a warning to a paced throughput case (--rate, --bitrate) whose receiving side got fewer
// than missed_rate_share of the messages a second asked (the rate times the streams): a sender
// that could not keep up, or a receiver that fell behind, makes a one-way latency of another
// load than the one named.
void warn_about_missed_rate(case_result &r);

}  // namespace ipcbench::report
