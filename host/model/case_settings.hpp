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
}  // namespace ipcbench::model

#include "model/generated/model_structs.hpp"  // IWYU pragma: export (struct case_settings)

namespace ipcbench::model {

constexpr int max_streams = static_cast<int>(protocol::max_streams);
constexpr int max_threads = static_cast<int>(protocol::max_threads);
constexpr int max_batch = static_cast<int>(protocol::max_batch);

// Every field with its name on the control channel and what it may hold: the struct above and
// the field list visit_fields(settings, visitor) are both made from the protocol's definition
// (protocol/worker-protocol.json, "case_settings"; model/generated/model_structs.hpp and
// case_fields.hpp). to_json and from_json walk the list (case_settings.cpp), so a new setting is
// a line in the definition, its parsing on the command line and its use.

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
