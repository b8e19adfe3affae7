#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace ipcbench::harness {

// What one worker does in the timed phase of a case.
struct job {
    std::string kind;  // "send", "receive", "bidir", "ping", "pong"
    std::uint64_t size = 0;
    std::int64_t duration_ns = 0;  // used when count == 0
    std::int64_t warmup_ns = 0;
    std::uint64_t count = 0;         // messages (or round trips) per stream; 0 = run for duration
    bool reliable = true;            // transport never drops: block, and end on the end marker
    bool stream = true;              // reassemble partial reads
    int streams = 1;                 // parallel streams, one thread and endpoint set each
    double rate = 0;                 // messages/s per stream; 0 = as fast as possible
    bool verify = false;             // check every payload byte
    int batch = 1;                   // messages per data-path call (send_batch, recv_batch...)
    std::string zero_copy = "auto";  // borrow/publish and take/release: auto, on, off
    std::int64_t interval_ns = 0;    // live interval reports; 0 = none
    int cpu = -1;                    // pin the process to this CPU; -1 = do not pin
};

inline nlohmann::json to_json(const job &j) {
    return {{"kind", j.kind},
            {"size", j.size},
            {"duration_ns", j.duration_ns},
            {"warmup_ns", j.warmup_ns},
            {"count", j.count},
            {"reliable", j.reliable},
            {"stream", j.stream},
            {"streams", j.streams},
            {"rate", j.rate},
            {"verify", j.verify},
            {"batch", j.batch},
            {"zero_copy", j.zero_copy},
            {"interval_ns", j.interval_ns},
            {"cpu", j.cpu}};
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
    j.streams = in.value("streams", 1);
    j.rate = in.value("rate", 0.0);
    j.verify = in.value("verify", false);
    j.batch = in.value("batch", 1);
    j.zero_copy = in.value("zero_copy", std::string("auto"));
    if (j.batch < 1 || j.batch > 1024) throw std::invalid_argument("batch out of range");
    j.interval_ns = in.value("interval_ns", std::int64_t{0});
    j.cpu = in.value("cpu", -1);
    if (j.streams < 1 || j.streams > 1024) throw std::invalid_argument("streams out of range");
    return j;
}

}  // namespace ipcbench::harness
