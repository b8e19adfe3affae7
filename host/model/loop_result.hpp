#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/job.hpp"
#include "platform/resource_usage.hpp"
#include "stats/latency_histogram.hpp"

namespace ipcbench::model {

// What one timed loop counted: one stream in one part (send, receive, ping or pong). Summed over
// a worker's streams of one part (timed/stream_set.cpp) it is what that worker counted, with
// each stream's own under `streams`. Counted where the messages move (harness/*_loops.cpp),
// read by the orchestrator; one (de)serialiser (loop_result.cpp), which type-checks every field
// (an agent's worker answers over a network).
struct loop_result {
    job_kind part = job_kind::send;     // send, receive, ping or pong
    std::uint64_t warmup_messages = 0;  // messages (round trips) before the timed window
    // send
    std::uint64_t messages_sent = 0;
    std::uint64_t bytes_sent = 0;
    // receive
    std::uint64_t messages_received = 0;
    std::uint64_t bytes_received = 0;
    std::uint64_t counted_messages = 0;  // message intervals inside the window (see window_s)
    std::uint64_t duplicates = 0;
    std::uint64_t out_of_order = 0;
    std::uint64_t beyond_window = 0;  // late arrivals older than the duplicate window
    std::uint64_t corrupted = 0;      // --verify: payload mismatches
    std::string ended_by;             // "end-marker", "sender-done", "closed"
    // ping
    std::uint64_t pings_sent = 0;
    std::uint64_t round_trips = 0;
    std::uint64_t lost = 0;        // pings with no pong in time (unreliable transports)
    std::uint64_t mismatched = 0;  // pongs carrying another ping's sequence number
    std::uint64_t stale_pongs = 0;
    // pong
    std::uint64_t echoed = 0;

    std::int64_t first_ns = 0;  // the timed window, CLOCK_MONOTONIC; 0 = nothing timed
    std::int64_t end_ns = 0;
    std::string path;  // the data-path calls: "send", "recv_batch", "send -> recv" (ping)
    platform::resource_usage usage;  // the stream threads' CPU over the window; RSS: the worker's
    // ping: round trips; paced receive: arrival minus scheduled send time (one way)
    std::optional<stats::latency_histogram> histogram;
    std::int64_t thread_id = 0;        // the thread that ran the loop (placement samples name it)
    std::string error;                 // set when the transport failed; the figures are partial
    int status = 0;                    // the failing call's IPCB_E_*
    std::vector<loop_result> streams;  // a worker's summed result: each stream's

    bool failed() const { return !error.empty(); }
    double window_s() const;
};

// The sum of one part's streams: counters added, windows spanned, histograms merged, usage
// accumulated; the first failure (naming its stream) becomes the sum's.
loop_result sum_streams(job_kind part, std::vector<loop_result> streams);

// A worker's answer to a "run": one summed loop_result per part it played (bidir: send and
// receive). The one place the result is spelled on the control channel.
struct worker_result {
    std::vector<loop_result> parts;
    const loop_result &part(job_kind k) const;  // throws std::invalid_argument if absent
};

void to_json(nlohmann::json &out, const loop_result &r);
void from_json(const nlohmann::json &in, loop_result &r);
void to_json(nlohmann::json &out, const worker_result &r);
void from_json(const nlohmann::json &in, worker_result &r);

}  // namespace ipcbench::model
