#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "control/control_channel.hpp"
#include "remote/agent_labels.hpp"
#include "remote/tcp_endpoint.hpp"

namespace ipcbench::remote {

// Where the server side of a run lives: an `ipchost serve` agent on another host.
struct agent_address {
    host_port address;
    std::string token;
    int data_port_first = 0;  // 0: any free port
    int data_port_last = 0;
    // An agent's peer client reaching another agent for a network client: a failure to connect
    // or a peer that does not answer the handshake as an agent reads the same whatever the
    // cause (the reason goes to the log), or the agent would be a port scanner. An agent's own
    // refusal (wrong token, busy) is still passed on: only an agent sends one.
    bool hide_unreached_cause = false;
};

// The one time a hidden failure takes (agent_address::hide_unreached_cause): the connection and
// the handshake get this long at most, and a failure is reported when it has passed, whatever
// its cause.
inline constexpr double hidden_failure_s = 3;

// What the session an agent starts for this client runs: one worker (a side of a case, the
// client driving it), or a peer client that runs the client side of whole cases against
// another agent (peer_client/peer_client.hpp).
// A roll call only asks who the agent is (roll_call below).
enum class agent_session { worker, peer_client, roll_call };

// A session with an agent: the socket, and the seals of its two directions, which every frame
// after the handshake carries (control/frame_seal.hpp). Not owning: the caller closes fd.
struct agent_link {
    platform::socket_handle fd = platform::no_socket;
    control::frame_seal to_agent{""}, from_agent{""};
    // The seals handed to the channel over fd that carries the session from now on.
    void seal(control::control_channel &channel) {
        channel.seal_with(std::move(to_agent), std::move(from_agent));
    }
};

// Connects to the agent and passes its handshake; returns the link, now the control channel of
// a fresh worker over there. Throws with the agent's own message when it refuses (wrong token,
// busy, other protocol version).
agent_link connect_agent(const agent_address &agent, double timeout_s,
                         agent_session session = agent_session::worker);

// Ends this client's side of a session and waits, at most timeout_ms, until the agent has ended
// it too: the agent closes its end only once the session no longer counts against its
// --max-sessions, so this client's next session there (a run's next case, a fleet's next round,
// a peer client's next case) is not told "busy" by the one it just finished. What the agent
// still sends is read and dropped. False when the agent did not close in time (or a Ctrl+C came
// meanwhile). The caller still closes fd.
bool finish_session(platform::socket_handle fd, int timeout_ms);

// The agent handshake on a connected socket (remote/agent_handshake.hpp): hello, the agent's
// challenge checked against agent.token, auth. Returns the agent's last answer (a welcome, or a
// goodbye when `done`); throws with the agent's own refusal by name, and with the reason when
// the agent could not prove it holds the token (nothing that reveals it was sent then).
// `link`, when given, receives the session's seals (fd included).
nlohmann::json authenticate(platform::socket_handle fd, const agent_address &agent,
                            const std::string &session, bool done, std::int64_t deadline,
                            agent_link *link = nullptr);

// Tells the agent this client's run is over (an agent started with --once then exits).
// Best effort: problems are only logged.
void say_goodbye(const agent_address &agent);

// Who an agent is, as its welcome says: what a fleet learns in its roll call.
struct agent_identity {
    std::string version;         // "ipchost 1.1.0", as it says (printable, capped)
    agent_labels labels;         // its `serve --label`s, each checked by the label rule
    std::string dropped_labels;  // labels it sent that broke the rule, and why ("" none)
    int sessions = 0;            // sessions it was running when it answered
    int max_sessions = 0;        // its --max-sessions (0: it did not say)
};

// Asks the agent who it is (a hello with "session": "roll_call"; the agent starts nothing) and
// closes. Throws as connect_agent does: the agent's own refusal (wrong token) by name.
agent_identity roll_call(const agent_address &agent, double timeout_s);

}  // namespace ipcbench::remote
