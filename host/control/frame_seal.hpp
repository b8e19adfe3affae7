#pragma once

// The authentication of every control frame after an agent's handshake (agent protocol 3,
// remote/agent_handshake.hpp): each direction has a key of its own, derived from the token and
// both nonces, and each frame carries HMAC-SHA256(key, sequence number | the frame's JSON) as
// its last 32 bytes, inside the frame's length. A frame that a relay injected, altered,
// replayed, reordered or dropped fails at the next frame that arrives: the session ends with
// that error. A party that passed the handshake's messages through without the token cannot
// make a frame either side accepts.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ipcbench::control {

inline constexpr std::size_t seal_bytes = 32;

class frame_seal {
public:
    explicit frame_seal(std::string key) : key_(std::move(key)) {}
    // A whole frame (4-byte length, JSON) with its tag appended and the length grown by it.
    std::string seal(const std::string &frame);
    // The JSON of a sealed frame's body (the bytes after the length): throws protocol_error
    // when the tag is not the one the next frame of this direction must carry.
    std::string open(const char *body, std::size_t n);
    // The same, nullopt (and the sequence unchanged) instead of the error: for the one frame
    // that may come unsealed, an agent's refusal of the auth.
    std::optional<std::string> try_open(const char *body, std::size_t n);

private:
    std::string key_;
    std::uint64_t sequence_ = 0;
};

}  // namespace ipcbench::control
