#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace ipcbench::harness {

// What one worker does in the timed phase of a case.
struct job {
    std::string kind;  // "send", "receive", "ping", "pong"
    std::uint64_t size = 0;
    std::int64_t duration_ns = 0;  // used when count == 0
    std::int64_t warmup_ns = 0;
    std::uint64_t count = 0;       // messages (or round trips) to time; 0 = run for duration
    bool reliable = true;          // transport never drops: block, and end on the end marker
    bool stream = true;            // reassemble partial reads
};

inline nlohmann::json to_json(const job &j) {
    return {{"kind", j.kind},         {"size", j.size},         {"duration_ns", j.duration_ns},
            {"warmup_ns", j.warmup_ns}, {"count", j.count},     {"reliable", j.reliable},
            {"stream", j.stream}};
}

inline job job_from_json(const nlohmann::json &in) {
    job j;
    j.kind = in.at("kind").get<std::string>();
    j.size = in.at("size").get<std::uint64_t>();
    j.duration_ns = in.at("duration_ns").get<std::int64_t>();
    j.warmup_ns = in.at("warmup_ns").get<std::int64_t>();
    j.count = in.at("count").get<std::uint64_t>();
    j.reliable = in.at("reliable").get<bool>();
    j.stream = in.at("stream").get<bool>();
    return j;
}

}  // namespace ipcbench::harness
