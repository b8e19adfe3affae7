#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "control/frame_seal.hpp"

namespace ipcbench::control {

// The control protocol between ipchost and its workers (and, later, a remote agent): frames of a
// 4-byte big-endian length followed by that many bytes of UTF-8 JSON, an object with a "type".
// This parser faces untrusted input: every malformed frame is a protocol_error, never a crash.
// Its version is negotiated in the hello (control/worker_messages.hpp, spoken_versions).
// 8 MiB: a setup or result of 20,000 bidirectional streams (their addresses, their per-stream
// rows) fits. The bound of every frame after an agent's handshake as well (README, Two hosts).
inline constexpr std::size_t max_frame_bytes = std::size_t{8} << 20;
// Before a client has shown its token the agent reads only a hello: a few hundred bytes.
inline constexpr std::size_t max_handshake_frame_bytes = 4096;
// Nesting of a control message: ours go 6 deep (a result's streams, their histograms).
inline constexpr std::size_t max_frame_depth = 32;

struct protocol_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string encode_frame(const nlohmann::json &message);

// Accumulates bytes and hands out whole messages.
class frame_decoder {
public:
    explicit frame_decoder(std::size_t max_frame = max_frame_bytes) : max_frame_(max_frame) {}
    void feed(const char *data, std::size_t size);
    // The next complete message, if any. Throws protocol_error on a frame over the bound,
    // invalid JSON, JSON nested deeper than max_frame_depth, or a message that is not an
    // object with a string "type".
    std::optional<nlohmann::json> next();
    std::size_t buffered() const { return buffer_.size() - consumed_; }
    // From now on every frame must carry the tag `opener` expects (control/frame_seal.hpp).
    void open_with(frame_seal opener) { opener_ = std::move(opener); }

private:
    std::optional<frame_seal> opener_;
    std::size_t max_frame_;
    std::string buffer_;
    std::size_t consumed_ = 0;
};

}  // namespace ipcbench::control
