#pragma once

#include <string>

#include "remote/tcp_endpoint.hpp"

namespace ipcbench::remote {

// Where the server side of a run lives: an `ipchost serve` agent on another host.
struct agent_address {
    host_port address;
    std::string token;
    int data_port_first = 0;  // 0: any free port
    int data_port_last = 0;
};

// Connects to the agent and passes its handshake; returns the socket, now the control channel of
// a fresh worker over there. Throws with the agent's own message when it refuses (wrong token,
// busy, other protocol version).
platform::socket_handle connect_agent(const agent_address &agent, double timeout_s);

// Tells the agent this client's run is over (an agent started with --once then exits).
// Best effort: problems are only logged.
void say_goodbye(const agent_address &agent);

}  // namespace ipcbench::remote
