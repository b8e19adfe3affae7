#include "control/control_channel.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::control {

void control_channel::send(const nlohmann::json &message) {
    std::string frame = encode_frame(message);
    std::size_t sent = 0;
    while (sent < frame.size()) {
        ssize_t n = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            throw channel_closed("control channel closed by the other process");
        } else {
            throw std::runtime_error(std::string("control channel write: ") + std::strerror(errno));
        }
    }
}

bool control_channel::pump() {
    char buf[65536];
    for (;;) {
        ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            decoder_.feed(buf, static_cast<std::size_t>(n));
            if (static_cast<std::size_t>(n) < sizeof buf) return true;
            continue;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == ECONNRESET) return false;
        throw std::runtime_error(std::string("control channel read: ") + std::strerror(errno));
    }
}

std::optional<nlohmann::json> control_channel::receive(std::int64_t deadline_ns) {
    for (;;) {
        if (auto message = decoder_.next()) return message;
        pollfd pfd{fd_, POLLIN, 0};
        int timeout_ms = -1;
        if (deadline_ns >= 0) {
            std::int64_t left = deadline_ns - platform::now_ns();
            timeout_ms = left <= 0 ? 0 : static_cast<int>((left + 999'999) / 1'000'000);
        }
        int rc = ::poll(&pfd, 1, timeout_ms);
        if (rc < 0) {
            if (errno == EINTR) return std::nullopt;
            throw std::runtime_error(std::string("control channel poll: ") + std::strerror(errno));
        }
        if (rc == 0) return std::nullopt;
        if (!pump()) {
            if (auto message = decoder_.next()) return message;
            throw channel_closed("control channel closed by the other process");
        }
    }
}

const nlohmann::json &expect_type(const nlohmann::json &message, const std::string &type) {
    const auto &got = message.at("type").get_ref<const std::string &>();
    if (got == "error")
        throw peer_error(message.value("stage", "?"), message.value("status", 0),
                         message.value("message", "unknown error"));
    if (got != type) throw protocol_error("expected a '" + type + "' message, got '" + got + "'");
    return message;
}

}  // namespace ipcbench::control
