#pragma once

// The messages of the worker protocol (docs/worker-protocol.md), one struct each with its field
// list; write_message and read_message are the one writer and the one reader of every message
// the orchestrator and a worker exchange, whichever process or language is at the other end.
// Results and interval reports have their own models (model/loop_result.hpp,
// model/interval_figures.hpp); the agent's handshake is remote/agent_hello.hpp.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "control/control_channel.hpp"
#include "control/message_kind.hpp"
#include "model/case_settings.hpp"
#include "model/field_visitors.hpp"

namespace ipcbench::control {

// A worker protocol version: major.minor. A minor version adds optional fields and nothing
// else; a new major version may change anything.
struct protocol_version {
    int major = 0;
    int minor = 0;
};
bool operator==(protocol_version a, protocol_version b);
bool operator<(protocol_version a, protocol_version b);
std::string to_string(protocol_version v);
std::optional<protocol_version> protocol_version_from(const std::string &text);

// What this ipchost speaks, newest first.
const std::vector<protocol_version> &spoken_versions();
// The newest version both sides speak, or nothing.
std::optional<protocol_version> pick_version(const std::vector<std::string> &offered);

// Most endpoints one setup may open: streams times two directions.
inline constexpr std::size_t max_endpoints = 2 * static_cast<std::size_t>(model::max_streams);

// worker -> orchestrator, first: who the worker is and which versions it speaks.
struct worker_hello {
    static constexpr message_kind kind = message_kind::hello;
    std::vector<std::string> versions;  // "major.minor", any order
    std::int64_t pid = 0;
    std::string implementation;  // "native", or the kit's name
    std::string runtime;         // the kit's runtime and version, e.g. "go1.19.8"; "" native
};

// orchestrator -> worker, after its hello: the version the two speak from now on.
struct worker_welcome {
    static constexpr message_kind kind = message_kind::welcome;
    std::string protocol;
};

enum class endpoint_role { creator, connector };
const char *to_string(endpoint_role r);
bool from_name(const std::string &name, endpoint_role &out);

enum class endpoint_direction { send, recv, both };
const char *to_string(endpoint_direction d);
bool from_name(const std::string &name, endpoint_direction &out);
std::uint32_t abi_direction(endpoint_direction d);  // IPCB_DIR_*
endpoint_direction direction_of(std::uint32_t abi_direction);

struct endpoint_spec {
    endpoint_direction direction = endpoint_direction::send;
    std::string address;  // a connector's: what the creator exported; a creator's: where, or ""
};

// orchestrator -> worker: open the endpoints of one side of a case.
struct setup_request {
    static constexpr message_kind kind = message_kind::setup;
    std::string transport;         // plugin.variant
    std::string library;           // the plugin file (a native worker's; "" through an agent)
    std::string library_identity;  // what the orchestrator checked of that file
    endpoint_role role = endpoint_role::creator;
    std::vector<endpoint_spec> endpoints;
    std::map<std::string, std::string> options;
    std::string runtime_dir;  // where named objects go ("" through an agent)
    std::uint64_t max_message_size = 0;
    // Since 1.1: the data connection serves one peer (the SDK's "ipcb.peer-binding/1"). A
    // creator takes only a peer from `binding_peer` (a numeric host) that presents the key; a
    // connector presents it. The key is hex (32 to 128 digits); "" binds nothing.
    std::string binding_key;
    std::string binding_peer;
};

// worker -> orchestrator: the endpoints are open; a creator's exported addresses, in order.
struct opened_reply {
    static constexpr message_kind kind = message_kind::opened;
    std::vector<std::string> addresses;
    std::string binding_key;  // since 1.1, from an agent: what its client's connectors present
};

// orchestrator -> worker: connect every endpoint, each within timeout_ns.
struct connect_request {
    static constexpr message_kind kind = message_kind::connect;
    std::int64_t timeout_ns = 0;
};

// What connecting cost one side.
struct connect_figures {
    std::uint64_t connections = 0;
    std::int64_t total_ns = 0;
    nlohmann::json histogram;  // stats::latency_histogram, read by its own reader
    std::uint64_t rss_before_kib = 0;
};

// worker -> orchestrator: every endpoint is connected.
struct connected_reply {
    static constexpr message_kind kind = message_kind::connected;
    std::map<std::string, std::string> settings;  // what the transport really set
    connect_figures setup;
};

// orchestrator -> worker: run one job (model::job, or a conformance check job) on the
// endpoints; directions[i] is what endpoint i is for.
struct run_request {
    static constexpr message_kind kind = message_kind::run;
    nlohmann::json job;
    std::vector<endpoint_direction> directions;
};

// worker -> orchestrator, during a run: each sending stream's count, once all are done.
// orchestrator -> the other worker as sender_done: what its unreliable receivers should expect.
struct sender_counts {
    message_kind kind = message_kind::sent;
    std::vector<std::int64_t> streams;
};

// Either direction: a request failed (stage: the message it answers).
struct error_reply {
    static constexpr message_kind kind = message_kind::error;
    std::string stage;
    std::int64_t status = 0;  // an ipcb_status (IPCB_E_*)
    std::string message;
};

// client -> an agent's peer client (peer_client/peer_client.hpp): run the client side of this case
// against the agent at `agent`, as `ipchost --peer AGENT` would from here.
struct peer_case_request {
    static constexpr message_kind kind = message_kind::peer_case;
    std::string agent;  // numeric HOST:PORT of the agent that runs the server side
    // The token the peer client proves itself with to that agent: the agent that runs the peer
    // client adds its own (it never comes from the wire: remote/agent_policy refuses it there).
    std::string token;
    std::int64_t data_port_first = 0, data_port_last = 0;  // its --data-port range; 0: any
    model::case_settings settings;
};

// peer client -> client: the case as a result document of its own (report/json_report.hpp:
// the peer client's host in "environment", one result in "results", or two for bidir).
struct peer_result_reply {
    static constexpr message_kind kind = message_kind::peer_result;
    nlohmann::json report;
};

// Requests and answers that carry nothing: close, closed.
struct empty_message {
    message_kind kind = message_kind::close;
};

namespace detail {
template <class M, class T>
constexpr bool is_a = std::is_same_v<std::remove_const_t<M>, T>;
template <class M, class T>
using if_a = std::enable_if_t<is_a<M, T>>;
}  // namespace detail

// Field lists, one per message (model/field_visitors.hpp says what each call means).
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, worker_hello> {
    v.text_list("versions", m.versions, 16, 16);
    v.integer("pid", m.pid, 0, INT64_MAX);
    v.optional_text("implementation", m.implementation, 64);
    v.optional_text("runtime", m.runtime, 128);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, worker_welcome> {
    v.text("protocol", m.protocol, 16);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, endpoint_spec> {
    v.named("direction", m.direction);
    v.optional_text("address", m.address, 4096);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, setup_request> {
    v.text("transport", m.transport, 200);
    v.optional_text("library", m.library, 4096);
    v.optional_text("library_identity", m.library_identity, 4096);
    v.named("role", m.role);
    v.object_list("endpoints", m.endpoints, 1, max_endpoints);
    v.text_map("options", m.options);
    v.optional_text("runtime_dir", m.runtime_dir, 4096);
    v.count("max_message_size", m.max_message_size, 0, std::uint64_t{1} << 40);
    v.optional_text("binding_key", m.binding_key, 128);
    v.optional_text("binding_peer", m.binding_peer, 64);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, opened_reply> {
    v.text_list("addresses", m.addresses, max_endpoints, 4096);
    v.optional_text("binding_key", m.binding_key, 128);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, connect_request> {
    v.integer("timeout_ns", m.timeout_ns, 0, INT64_MAX);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, connect_figures> {
    v.count("connections", m.connections, 0, max_endpoints);
    v.integer("total_ns", m.total_ns, 0, INT64_MAX);
    v.document("histogram", m.histogram);
    v.count("rss_before_kib", m.rss_before_kib, 0, std::uint64_t{1} << 48);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, connected_reply> {
    v.text_map("settings", m.settings);
    v.object("setup", m.setup);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, run_request> {
    v.document("job", m.job);
    v.named_list("directions", m.directions, max_endpoints);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, sender_counts> {
    v.integer_list("streams", m.streams, model::max_streams, 0, INT64_MAX);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, error_reply> {
    v.text("stage", m.stage, 64);
    v.integer("status", m.status, INT32_MIN, INT32_MAX);
    v.text("message", m.message, 65536);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, peer_case_request> {
    v.text("agent", m.agent, 80);
    v.optional_text("token", m.token, 1024);
    v.integer("data_port_first", m.data_port_first, 0, 65535);
    v.integer("data_port_last", m.data_port_last, 0, 65535);
    v.object("settings", m.settings);
}
template <class M, class V>
auto visit_fields(M &m, V &&v) -> detail::if_a<M, peer_result_reply> {
    v.document("report", m.report);
}
template <class M, class V>
auto visit_fields(M &, V &&) -> detail::if_a<M, empty_message> {}

// The message, {"type": ...} and its fields.
template <class M>
nlohmann::json write_message(const M &m) {
    return message(m.kind, model::field_writer::write_fields(m));
}

// Reads fields of a message already known to be of M's kind; protocol_error naming the message
// and the field when one is missing, mistyped or out of range.
template <class M>
M read_fields_of(const nlohmann::json &m, message_kind kind) {
    M out{};
    try {
        model::field_reader::read_into(m, std::string(name_of(kind)) + " message", out);
    } catch (const model::bad_field &e) {
        throw protocol_error(e.what());
    }
    return out;
}

// The message of kind M::kind, every field checked: protocol_error naming the message and the
// field otherwise, peer_error when the peer sent an error instead (control_channel.hpp).
template <class M>
M read_message(const nlohmann::json &m) {
    const message_kind kind = M{}.kind;
    expect_kind(m, kind);
    return read_fields_of<M>(m, kind);
}

// A sent or a sender_done message.
sender_counts read_sender_counts(const nlohmann::json &m);

}  // namespace ipcbench::control
