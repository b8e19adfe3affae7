#pragma once

#include "platform/stream_socket.hpp"

namespace ipcbench::peer_client {

// An agent's peer client: the process an `ipchost serve` agent starts for a session whose hello
// asked for "session": "peer_client" (agent to agent, README "Agent to agent"). It reads
// peer_case requests (control::peer_case_request) from its control channel, the agent having
// checked each against its policy, and runs each case as `ipchost --peer AGENT` would here: the
// client side in a fresh local worker, the server side on the other agent. Its rules, on top of
// the agent's:
//   - the transport is found by id in this host's own plugin folders and must cross hosts;
//   - its control connection goes only to a peer that answers the token handshake as an
//     agent, and a failure to reach one reads the same whatever the cause;
//   - its data endpoints connect only to the addresses that agent opened on its own address
//     (remote::refuse_peer_addresses), never where a (hostile) peer points them.
// Answers each request with peer_result (the results, as report/json_report writes them) or an
// error, and returns when the channel closes. Never tells the other agent goodbye (an agent
// started with --once belongs to the client that drives it).
int peer_client_main(platform::socket_handle control_fd);

}  // namespace ipcbench::peer_client
