#pragma once

#include <string>

#include "platform/stream_socket.hpp"

namespace ipcbench::remote {

// Numeric "HOST:PORT" / "[V6]:PORT" for the control connection (no DNS: benchmark hosts are
// named by address). Throws std::invalid_argument naming the text.
struct host_port {
    std::string host;
    int port = 0;
    bool loopback() const;
    std::string text() const;
};
host_port parse_host_port(const std::string &text, int default_port);

// A listening TCP socket, not inherited by workers; throws naming the address and the reason.
platform::socket_handle listen_tcp(const host_port &where, int backlog = 8);
// A connected TCP socket, within timeout_s; throws naming the agent and the reason.
platform::socket_handle connect_tcp(const host_port &where, double timeout_s);

}  // namespace ipcbench::remote
