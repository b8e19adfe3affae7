#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>

#include <nlohmann/json_fwd.hpp>

#include "model/generated/protocol_definition.hpp"

namespace ipcbench::model {

// What a case measures: one-way streaming or ping-pong round trips.
enum class measure_mode { throughput, latency };

// Throughput: who sends. forward = the client (the connecting process) sends, reverse = the
// server (the creating process) sends, bidir = both at once (two endpoints per stream).
enum class traffic_direction { forward, reverse, bidir };

// Where messages are written and read: in the transport's memory (borrow/publish,
// take/release) when it offers that (automatic), only then (on), or always copied (off).
enum class zero_copy_policy { automatic, on, off };

// How a worker drives its streams' endpoints (--io): a thread per stream and blocking calls
// (threads), or few threads multiplexing many endpoints through the ABI 1.2 calls: readiness
// with epoll, completion with io_uring or IOCP. automatic is resolved by the orchestrator to the
// best the transport offers before a job is sent, so a worker never sees it.
enum class io_engine { automatic, threads, epoll, uring, iocp };

// --affinity: the sending (pinging) process on one CPU, the other on another; -1 = not pinned.
struct cpu_placement {
    int sender_cpu = -1;
    int receiver_cpu = -1;
    bool pinned() const { return sender_cpu >= 0 || receiver_cpu >= 0; }
};

// Everything that defines one case, declared once: the command line fills it, the orchestrator
// derives each worker's job from it, the workers run it, the agent relays it and the reports
// print it. Units are in the names. Serialised to and from the control channel by to_json /
// from_json (case_settings_json.cpp), which checks every field: it may come from a network.
struct case_settings {
    std::string transport_id;  // plugin.variant
    measure_mode mode = measure_mode::throughput;
    traffic_direction direction = traffic_direction::forward;  // throughput only
    std::uint64_t size_bytes = 0;                              // one message
    double duration_s = 0.5;                                   // the timed phase
    double warmup_s = 0.2;                                     // untimed traffic before it
    std::uint64_t count = 0;  // > 0: exactly this many messages (round trips) per stream
    double timeout_s = 0;     // watchdog for the whole case; 0 = derived from the schedule
    int streams = 1;          // parallel streams, an endpoint (set) each
    io_engine io = io_engine::automatic;  // as resolved for the transport (reported with results)
    int threads = 0;        // event engines: threads per process multiplexing the streams; 0 = CPUs
    double rate_per_s = 0;  // paced messages per second per stream; 0 = as fast as possible
    int burst = 1;          // paced: messages sent back to back at each slot (--burst)
    bool verify = false;    // check every payload byte
    int batch = 1;          // throughput: messages per data-path call
    zero_copy_policy zero_copy = zero_copy_policy::automatic;
    double interval_s = 0;  // live interval reports; 0 = none
    cpu_placement affinity;
    std::map<std::string, std::string> options;  // the transport's own options (--opt)
    // Who runs each side (--impl): "native" (ipchost's own worker) or a kit's name. The sender
    // side is the sending (pinging) process, the receiver side the other.
    std::string sender_impl = "native";
    std::string receiver_impl = "native";
};

constexpr int max_streams = static_cast<int>(protocol::max_streams);
constexpr int max_threads = static_cast<int>(protocol::max_threads);
constexpr int max_batch = static_cast<int>(protocol::max_batch);

// Every field with its name on the control channel and what it may hold: the field list
// visit_fields(settings, visitor) is made from the protocol's definition
// (protocol/worker-protocol.json, "case_settings"; model/generated/case_fields.hpp, included at
// the end of this file). to_json and from_json walk it (case_settings.cpp), so a new setting is a
// member above, a line in the definition, its parsing on the command line and its use.

// The names used on the command line, in JSON and in tables.
const char *to_string(measure_mode m);
const char *to_string(traffic_direction d);
const char *to_string(zero_copy_policy z);
const char *to_string(io_engine e);
std::optional<io_engine> io_engine_from(const std::string &name);
std::optional<measure_mode> measure_mode_from(const std::string &name);
std::optional<traffic_direction> traffic_direction_from(const std::string &name);
std::optional<zero_copy_policy> zero_copy_policy_from(const std::string &name);
// The same, for the field lists' readers (model/field_visitors.hpp): false for a name of none.
bool from_name(const std::string &name, measure_mode &out);
bool from_name(const std::string &name, traffic_direction &out);
bool from_name(const std::string &name, zero_copy_policy &out);
bool from_name(const std::string &name, io_engine &out);

std::int64_t to_ns(double seconds);

// The watchdog of a case: --timeout, or the schedule plus 20 s (a paced count takes
// count / rate; an unpaced count gets 300 s).
double watchdog_seconds(const case_settings &c);

// The memory budget of a case: what the harness's own message buffers in one worker process
// may add up to, bounded so that no command line or client can make a worker allocate without
// limit. The buffers: per stream and direction a process plays, --batch messages of --size
// bytes, and as much again for a receiver's reassembly room. Checked before any worker starts
// (locally, exit 2) and by an agent before its worker runs the job (README, "Memory budget").
constexpr std::uint64_t default_memory_budget = std::uint64_t{4} << 30;          // a run: 4 GiB
constexpr std::uint64_t default_agent_memory_budget = std::uint64_t{512} << 20;  // serve: 512 MiB
std::uint64_t buffer_bytes_per_process(const case_settings &c);
// "" when the case fits `budget`, else why not: the figure, the budget and what to change.
std::string over_memory_budget(const case_settings &c, std::uint64_t budget,
                               const std::string &raise_with);

void to_json(nlohmann::json &out, const case_settings &c);
void from_json(const nlohmann::json &in, case_settings &c);

}  // namespace ipcbench::model

#include "model/generated/case_fields.hpp"  // IWYU pragma: export
