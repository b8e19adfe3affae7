#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ipcbench::remote {
struct peer_agent;
}

namespace ipcbench::harness {

// What to measure in one case.
struct case_spec {
    std::string transport_id;
    std::string mode;                   // "throughput" or "latency"
    std::string direction = "forward";  // throughput: "forward" (client sends), "reverse", "bidir"
    std::uint64_t size = 0;
    double duration_s = 0.5;
    double warmup_s = 0.2;
    std::uint64_t count = 0;  // > 0: a fixed number of messages / round trips per stream
    double timeout_s = 0;     // watchdog for the whole case; 0 = derived from duration
    int streams = 1;
    double rate = 0;  // messages/s per stream; 0 = unpaced
    bool verify = false;
    int batch = 1;                   // throughput: messages per data-path call
    std::string zero_copy = "auto";  // borrow/publish, take/release: auto, on, off
    double interval_s = 0;           // live interval reports; 0 = none
    int sender_cpu = -1;             // --affinity; -1 = not pinned
    int receiver_cpu = -1;
    std::map<std::string, std::string> options;  // user options for this transport
    const remote::peer_agent *peer = nullptr;    // --peer: the server side runs there
};

}  // namespace ipcbench::harness
