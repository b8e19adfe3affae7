#pragma once

#include <cstdint>
#include <string>

#include "model/job.hpp"
#include "model/loop_result.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/resource_usage.hpp"
#include "stats/latency_histogram.hpp"
#include "stats/sequence_tracker.hpp"
#include "timed/message_header.hpp"
#include "timed/payload_pattern.hpp"

namespace ipcbench::timed {

// What a throughput receiver counts of the messages it is handed, whichever engine moves them
// (a stream's thread, or an event loop). count() sees one whole message and returns false at
// the end marker.
struct receive_tally {
    std::uint64_t received = 0, warm = 0, corrupted = 0;
    stats::sequence_tracker sequences;
    std::int64_t first = 0, last = 0, end = 0;
    std::string ended_by;

    // paced: one_way gets arrival minus scheduled send time. on_first runs at the first timed
    // message (the thread engine starts its CPU sample there).
    template <class OnFirst>
    bool count(const unsigned char *m, const model::job &j, const payload_pattern &pattern,
               stats::latency_histogram *one_way, OnFirst &&on_first) {
        const std::uint64_t header = read_header(m);
        if (header & flag_end) {
            end = platform::now_ns();
            ended_by = "end-marker";
            return false;
        }
        if (header & flag_warmup) {
            ++warm;
            return true;
        }
        if (received == 0) {
            first = platform::now_ns();
            on_first();
        }
        if (!j.reliable || one_way) last = platform::now_ns();
        ++received;
        const std::uint64_t seq = header & sequence_mask;
        if (sequences.record(seq) && j.settings.verify && !pattern.matches(m, seq)) ++corrupted;
        if (one_way) {
            const auto scheduled = static_cast<std::int64_t>(read_u64(m + timestamp_offset));
            one_way->record(static_cast<std::uint64_t>(last > scheduled ? last - scheduled : 0));
        }
        return true;
    }

    // The figures as the loop left them (the window, and how many message intervals it covers).
    model::loop_result result(const model::job &j, const std::string &path) const {
        model::loop_result r;
        r.part = model::job_kind::receive;
        r.messages_received = received;
        r.bytes_received = received * j.settings.size_bytes;
        r.warmup_messages = warm;
        r.duplicates = sequences.duplicates();
        r.out_of_order = sequences.out_of_order();
        r.beyond_window = sequences.beyond_window();
        r.corrupted = corrupted;
        r.first_ns = first;
        r.end_ns = received ? end : first;
        // The window runs from the arrival of the first timed message to the end marker, which
        // covers `received` message intervals; without a marker it ends at the last arrival,
        // covering one fewer.
        r.counted_messages = ended_by == "end-marker" || ended_by == "closed"
                                 ? received
                                 : (received ? received - 1 : 0);
        r.ended_by = ended_by;
        r.path = path;
        return r;
    }
};

// Where a message's pattern starts: after the header, and after the timestamp when paced.
inline std::size_t pattern_offset(const model::job &j) {
    return j.settings.rate_per_s > 0 ? timestamp_offset + 8 : header_bytes;
}

}  // namespace ipcbench::timed
