#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/generated/message_kinds.hpp"

namespace ipcbench::control {

// Every kind of control message (control/generated/message_kinds.hpp, from the protocol's
// definition, protocol/worker-protocol.json): message_kind.cpp holds its table, the wire name,
// who sends it, whether it is a request that is answered once. A worker's control channel
// carries all but goodbye and the peer kinds; a client talks to an agent with hello first, then,
// once welcomed, with what the agent relays to its worker, or, in a session that asked for a
// peer client (peer_client/peer_client.hpp), to that. docs/architecture.md, "Control messages".

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
