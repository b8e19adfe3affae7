#include "control/control_channel.hpp"

#include "platform/monotonic_clock.hpp"
#include "platform/stream_socket.hpp"

namespace ipcbench::control {

void control_channel::send(const nlohmann::json &message) {
    const std::string frame =
        sealer_ ? sealer_->seal(encode_frame(message)) : encode_frame(message);
    try {
        if (!platform::send_all(socket_, frame.data(), frame.size(), send_stall_timeout_ms))
            throw channel_closed("control channel closed by the other process");
    } catch (const platform::socket_error &e) {
        throw std::runtime_error(std::string("control channel write: ") + e.what());
    }
}

bool control_channel::pump() {
    char buf[65536];
    for (;;) {
        platform::io_result got;
        try {
            got = platform::receive_some(socket_, buf, sizeof buf, false);
        } catch (const platform::socket_error &e) {
            throw std::runtime_error(std::string("control channel read: ") + e.what());
        }
        if (got.status == platform::io_status::closed) return false;
        if (got.status == platform::io_status::would_block) return true;
        decoder_.feed(buf, got.bytes);
        if (got.bytes < sizeof buf) return true;
    }
}

std::optional<nlohmann::json> control_channel::receive(std::int64_t deadline_ns) {
    for (;;) {
        if (auto message = decoder_.next()) return message;
        int timeout_ms = -1;
        if (deadline_ns >= 0) {
            std::int64_t left = deadline_ns - platform::now_ns();
            timeout_ms = left <= 0 ? 0 : static_cast<int>((left + 999'999) / 1'000'000);
        }
        platform::readiness ready;
        try {
            ready = platform::wait_readable({socket_}, timeout_ms);
        } catch (const platform::socket_error &e) {
            throw std::runtime_error(std::string("control channel poll: ") + e.what());
        }
        if (ready.interrupted || !ready.any()) return std::nullopt;
        if (!pump()) {
            if (auto message = decoder_.next()) return message;
            throw channel_closed("control channel closed by the other process");
        }
    }
}

const nlohmann::json &expect_kind(const nlohmann::json &message, message_kind kind) {
    const message_kind got = kind_of(message);
    if (got == message_kind::error)
        throw peer_error(message.value("stage", "?"), message.value("status", 0),
                         message.value("message", "unknown error"));
    if (got != kind)
        throw protocol_error(std::string("expected a '") + name_of(kind) + "' message, got '" +
                             name_of(got) + "'");
    return message;
}

}  // namespace ipcbench::control
