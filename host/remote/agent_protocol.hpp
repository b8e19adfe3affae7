#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipcbench::remote {

// The agent handshake, before any worker exists:
//   client -> agent  {"type":"hello","protocol":1,"token":"..."}
//   agent -> client  {"type":"welcome","agent":"ipchost 1.0.0"} or {"type":"error","message":...}
// After "welcome" the connection is the control channel of a fresh worker on the agent's host,
// exactly as a local worker's socketpair (the worker's own "hello" comes first).
inline constexpr int agent_protocol_version = 1;
inline constexpr int default_port = 7451;
inline constexpr double handshake_timeout_s = 10;

// Equal strings in time that depends only on the length of `given`, not on where they differ.
bool tokens_equal(const std::string &expected, const std::string &given);

// The token in a file (first line, surrounding white space removed); throws naming the file.
std::string read_token_file(const std::string &path);

// The token in the environment variable `name` (surrounding white space removed), which is
// removed from the environment; throws naming the variable when it is unset, empty or no
// variable name.
std::string read_token_variable(const std::string &name);

}  // namespace ipcbench::remote

namespace ipcbench::remote {

// A fresh random token: 64 hex digits (256 bits) from the system's random source.
std::string generate_token();

}  // namespace ipcbench::remote
