#pragma once

#include <optional>
#include <string>

namespace ipcbench::remote {

// A data connection bound to its one peer (the SDK's "ipcb.peer-binding/1", worker protocol
// 1.1): for each creator setup an agent draws a key, gives it to its worker with the client's
// address, and tells the client in its `opened` answer; the client's connectors present it. A
// third party that reaches the agent's data port first is refused; the agent never measures it.

// A fresh key: 32 bytes from the cryptographic generator, in hex (64 digits).
std::string new_binding_key();
// The bytes of a key given in hex (32 to 128 digits, even), or nothing when it is no such key.
std::optional<std::string> binding_key_bytes(const std::string &hex_key);

}  // namespace ipcbench::remote
