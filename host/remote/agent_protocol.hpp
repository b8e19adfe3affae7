#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipcbench::remote {

// The agent handshake, before any worker exists (remote/agent_handshake.hpp): hello, challenge,
// auth, then "welcome" or {"type":"error","message":...}. After "welcome" the connection is the
// control channel of a fresh worker on the agent's host, exactly as a local worker's socketpair
// (the worker's own "hello" comes first). Version 2 replaced version 1's token in clear with a
// mutual challenge-response; each side refuses the other version by name.
inline constexpr int agent_protocol_version = 2;
inline constexpr int default_port = 7451;
inline constexpr double handshake_timeout_s = 10;

// The token in a file (first line, surrounding white space removed); throws naming the file.
std::string read_token_file(const std::string &path);

// The token in the environment variable `name` (surrounding white space removed), which is
// removed from the environment; throws naming the variable when it is unset, empty or no
// variable name.
std::string read_token_variable(const std::string &name);

}  // namespace ipcbench::remote

namespace ipcbench::remote {

// A fresh random token: 64 hex digits (256 bits) from the system's cryptographic generator.
std::string generate_token();

}  // namespace ipcbench::remote
