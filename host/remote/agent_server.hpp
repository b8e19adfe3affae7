#pragma once

#include <filesystem>
#include <string>

#include "remote/tcp_endpoint.hpp"

namespace ipcbench::remote {

struct serve_options {
    host_port bind{"127.0.0.1", 7451};
    std::string token;           // empty: one is generated (unless insecure)
    bool insecure = false;       // run without any token: anyone who reaches the port may run
    bool allow_root = false;     // serve although running as root
    bool once = false;           // exit when the first client says its run is over
    double idle_timeout_s = 10;  // a silent client is dropped (the handshake gets at most 5 s)
    std::filesystem::path token_path;  // where a generated token is written (default: per user)
};

// `ipchost serve`: a network service, so it trusts nothing from the wire. Up to
// max_pending_handshakes connections may be authenticating at once (the oldest is dropped when a
// new one needs the room); only a client whose hello carried the right token can start a session
// or be told "busy". A session runs a fresh worker in agent mode (only cross-host transports the
// agent discovered itself, only network addresses) and relays the control channel, watching
// that every request gets its answer; a session silent longer than the idle timeout with no
// request outstanding is ended. Logs every session. Returns the exit code.
int serve(const serve_options &options);

inline constexpr std::size_t max_pending_handshakes = 8;
inline constexpr double max_handshake_s = 5;

}  // namespace ipcbench::remote
