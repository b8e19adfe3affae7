#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ipcbench::control {

// Every kind of control message, in one list (message_kind.cpp holds its table: the wire name,
// who sends it, whether it is a request that is answered once). A worker's control channel
// carries all but goodbye and the peer kinds; a client talks to an agent with hello first, then,
// once welcomed, with what the agent relays to its worker, or, in a session that asked for a
// peer client (peer_client/peer_client.hpp), to that. docs/architecture.md, "Control messages".
enum class message_kind {
    hello,        // worker -> orchestrator, first; client -> agent, first (its nonce)
    welcome,      // agent -> client: the token was right; orchestrator -> worker: the version
    goodbye,      // agent -> client: it is stopping
    setup,        // -> worker: load the transport, open the endpoints (answer: opened)
    opened,       // worker ->: the endpoints and their addresses
    connect,      // -> worker: connect the endpoints (answer: connected)
    connected,    // worker ->: connected, with the connections' set-up figures
    run,          // -> worker: run this job (answer: result)
    interval,     // worker ->: a live --interval report while it runs
    sent,         // worker ->: its senders are done, with each stream's count
    sender_done,  // -> worker: the peer's senders are done (an unreliable receiver may stop)
    probe,        // -> worker: one conformance probe (answer: result); never through an agent
    result,       // worker ->: a run's or a probe's result
    close,        // -> worker: close everything and stop (answer: closed)
    closed,       // worker ->: closed
    error,        // any side: why a request failed, or why a session ended
    peer_case,    // client -> agent's peer client: run the client side against another agent
    peer_result,  // agent's peer client ->: that case's results (answer to peer_case)
    challenge,    // agent -> client, after its hello: the agent's nonce and proof
    auth,         // client -> agent, after checking that proof: the client's proof
};

struct message_kind_info {
    message_kind kind;
    const char *name;   // the "type" on the wire
    bool request;       // sent to a worker, answered exactly once (an answer, below)
    bool answer;        // a worker's answer to a request
    bool agent_relays;  // an agent passes it from a client to the client's worker
    bool peer_relays;   // an agent passes it from a client to the client's peer client
};

const message_kind_info &info(message_kind k);
const char *name_of(message_kind k);
std::optional<message_kind> message_kind_from(const std::string &name);
// The names of the kinds with `property` (e.g. &message_kind_info::agent_relays), in order.
std::vector<std::string> names_where(bool message_kind_info::*property);

// A message of kind k: {"type": name} and the given fields.
nlohmann::json message(message_kind k, nlohmann::json fields = nlohmann::json::object());
// A message whose type is no kind of ours, `type`: what a conformance check sends a worker to
// see it refused by name.
nlohmann::json message_of_no_kind(const std::string &type);
// The kind of a received message (one whose "type" the frame decoder found to be a string);
// throws protocol_error naming the type when it is no kind of this list.
message_kind kind_of(const nlohmann::json &m);
// The type a message names, for an error text ("?" when it names none).
std::string type_text(const nlohmann::json &m);
// The kind of m, or nothing when its type is none of the list.
std::optional<message_kind> known_kind(const nlohmann::json &m);
// Whether m is of kind k (an unknown type is no kind).
bool is(const nlohmann::json &m, message_kind k);

}  // namespace ipcbench::control
