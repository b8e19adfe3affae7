#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "control/frame_codec.hpp"
#include "control/message_kind.hpp"
#include "platform/stream_socket.hpp"

namespace ipcbench::control {

// The peer closed the channel (its process ended).
struct channel_closed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A peer that takes no byte of a frame for this long has stopped reading: the write fails
// instead of holding this process (a hung worker, an agent or a client that stopped reading).
// Far above anything a live peer needs: frames are small, read at once.
inline constexpr int send_stall_timeout_ms = 30'000;

// One end of a control connection over a stream socket. Does not own the socket.
class control_channel {
public:
    explicit control_channel(platform::socket_handle socket) : socket_(socket) {}

    void send(const nlohmann::json &message);
    // Waits until deadline_ns (platform::now_ns; < 0 forever) for a message. std::nullopt on
    // timeout or when interrupted by a signal (the caller checks why). Throws channel_closed at
    // end of stream, protocol_error on garbage.
    std::optional<nlohmann::json> receive(std::int64_t deadline_ns);
    // A message already buffered or readable without waiting.
    std::optional<nlohmann::json> poll() { return receive(0); }
    bool has_buffered() const { return decoder_.buffered() > 0; }
    platform::socket_handle socket() const { return socket_; }
    // After an agent's handshake: every frame sent is sealed, every frame read must open
    // (control/frame_seal.hpp).
    void seal_with(frame_seal to_peer, frame_seal from_peer) {
        sealer_ = std::move(to_peer);
        decoder_.open_with(std::move(from_peer));
    }

    // Reads whatever is readable now into the decoder; false at end of stream.
    bool pump();
    std::optional<nlohmann::json> next_buffered() { return decoder_.next(); }

private:
    platform::socket_handle socket_;
    frame_decoder decoder_;
    std::optional<frame_seal> sealer_;
};

// A message of the given type, or a protocol_error naming what came instead. An {"type":"error"}
// message from the peer is thrown as peer_error.
struct peer_error : std::runtime_error {
    peer_error(const std::string &stage, int status, const std::string &message)
        : std::runtime_error(message), stage(stage), status(status) {}
    std::string stage;
    int status;
};

const nlohmann::json &expect_kind(const nlohmann::json &message, message_kind kind);

}  // namespace ipcbench::control
