#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

namespace ipcbench::remote {

// A client's first frame to the agent, after every field was type-checked.
struct agent_hello {
    int protocol = 0;
    std::string token;
    std::string client;  // free text for the session log ("ipchost 1.1.0"), capped
    bool done = false;   // the client's run is over: no worker wanted
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

}  // namespace ipcbench::remote
