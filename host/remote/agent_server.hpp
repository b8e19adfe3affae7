#pragma once

#include <string>

#include "remote/tcp_endpoint.hpp"

namespace ipcbench::remote {

struct serve_options {
    host_port bind{"127.0.0.1", 7451};
    std::string token;  // empty: no token (refused off loopback unless insecure)
    bool insecure = false;
    bool once = false;           // exit when the first client says its run is over
    double idle_timeout_s = 10;  // a client silent this long during the handshake is dropped
};

// `ipchost serve`: accepts one benchmark client at a time, checks its token (in constant time),
// runs a fresh worker for it and relays the control channel; a second client meanwhile gets a
// "busy" error. Logs every session (client, outcome). Returns the exit code.
int serve(const serve_options &options);

}  // namespace ipcbench::remote
