#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipcbench::remote {

// The agent handshake, before any worker exists (remote/agent_handshake.hpp): hello, challenge,
// auth, then "welcome" or {"type":"error","message":...}. After "welcome" the connection is the
// control channel of a fresh worker on the agent's host, exactly as a local worker's socketpair
// (the worker's own "hello" comes first), every frame sealed (control/frame_seal.hpp).
// Version 2 replaced version 1's token in clear with a mutual challenge-response; version 3
// binds the session to the handshake (sealed frames, the dialled address in the transcript).
// Each side refuses another version by name.
inline constexpr int agent_protocol_version = 3;
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

// The bits of entropy a token given by hand carries, estimated: its length (counting at most
// four characters per distinct one, so "aaaa..." and "abab..." count little) times log2 of the
// alphabet its characters come from (hex digits 16; else lower case 26, upper case 26, digits
// 10 and other characters 33, for each class present). An estimate that refuses short and
// repetitive tokens; a dictionary phrase can still pass it: a generated token is the answer.
double token_entropy_bits(const std::string &token);
// An agent's token needs this many: its challenge, which it sends to anyone, is a proof made
// with the token that a guess can be checked against offline (remote/agent_handshake.hpp).
inline constexpr double min_token_bits = 128;

}  // namespace ipcbench::remote
