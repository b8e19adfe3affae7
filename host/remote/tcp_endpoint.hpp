#pragma once

#include <string>

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

// A listening TCP socket (SO_REUSEADDR, close-on-exec); throws with the reason.
int listen_tcp(const host_port &where);
// A connected TCP socket, within timeout_s; throws with the reason.
int connect_tcp(const host_port &where, double timeout_s);
// "10.0.0.2:53012" of a connected socket's peer.
std::string peer_name(int fd);

}  // namespace ipcbench::remote
