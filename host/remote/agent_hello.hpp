#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

namespace ipcbench::remote {

// A client's first frame to the agent, after every field was type-checked (protocol 2:
// remote/agent_handshake.hpp; a hello of another version is refused by its number alone).
struct agent_hello {
    int protocol = 0;
    std::string nonce;    // the client's nonce (64 hex digits)
    std::string session;  // "worker", "peer_client" or "roll_call", as the proofs cover it
    std::string client;   // free text for the session log ("ipchost 1.1.0"), capped
    std::string dialled;  // the address the client's socket connected to, "host:port"
    bool done = false;    // the client's run is over: no worker wanted
    // "session": "peer_client": the session runs the client side of cases against another
    // agent (peer_client/peer_client.hpp) instead of one worker; "worker" (the default) as before.
    bool peer_client = false;
    // "session": "roll_call": the client only asks who the agent is (its version, --label
    // labels, sessions): the agent answers a welcome carrying them and closes; no worker.
    bool roll_call = false;
};

// Reads a hello from an untrusted frame. Never throws: a frame of the wrong shape (not an object,
// a field of the wrong JSON type, an unknown type) yields the text of the error to answer with.
std::variant<agent_hello, std::string> parse_hello(const nlohmann::json &frame);

// The client's proof from its `auth` frame, or the text of what is wrong with the frame (held in
// the variant's second alternative, as parse_hello's).
struct agent_auth {
    std::string proof;
};
std::variant<agent_auth, std::string> parse_auth(const nlohmann::json &frame);

}  // namespace ipcbench::remote
