#include "remote/agent_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <stdexcept>

#include "control/control_channel.hpp"
#include "platform/monotonic_clock.hpp"
#include "remote/agent_protocol.hpp"

namespace ipcbench::remote {

void say_goodbye(const agent_address &agent) {
    int fd = -1;
    try {
        fd = connect_tcp(agent.address, 5);
        control::control_channel channel(fd);
        channel.send({{"type", "hello"},
                      {"protocol", agent_protocol_version},
                      {"token", agent.token},
                      {"done", true}});
        channel.receive(platform::now_ns() + 5'000'000'000);
    } catch (const std::exception &e) {
        spdlog::debug("goodbye to the agent at {}: {}", agent.address.text(), e.what());
    }
    if (fd >= 0) close(fd);
}

namespace {

// Reads exactly n bytes by deadline: the agent's answer must be taken off the socket without
// reading into what the worker sends right after it.
bool recv_exact(int fd, char *buf, std::size_t n, std::int64_t deadline) {
    std::size_t got = 0;
    while (got < n) {
        pollfd pfd{fd, POLLIN, 0};
        const std::int64_t left = deadline - platform::now_ns();
        if (left <= 0 || ::poll(&pfd, 1, static_cast<int>(left / 1'000'000) + 1) <= 0) return false;
        ssize_t r = ::recv(fd, buf + got, n - got, 0);
        if (r <= 0) throw control::channel_closed("closed");
        got += static_cast<std::size_t>(r);
    }
    return true;
}

}  // namespace

int connect_agent(const agent_address &agent, double timeout_s) {
    const int fd = connect_tcp(agent.address, timeout_s);
    try {
        control::control_channel channel(fd);
        channel.send({{"type", "hello"},
                      {"protocol", agent_protocol_version},
                      {"token", agent.token},
                      {"client", std::string("ipchost ") + IPCBENCH_VERSION}});
        const std::int64_t deadline =
            platform::now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
        char header[4];
        if (!recv_exact(fd, header, 4, deadline))
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " did not answer the handshake in time");
        const std::uint32_t n = (std::uint32_t{static_cast<unsigned char>(header[0])} << 24) |
                                (std::uint32_t{static_cast<unsigned char>(header[1])} << 16) |
                                (std::uint32_t{static_cast<unsigned char>(header[2])} << 8) |
                                std::uint32_t{static_cast<unsigned char>(header[3])};
        if (n == 0 || n > 65536)
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " answered with a malformed frame");
        std::string body(n, '\0');
        if (!recv_exact(fd, body.data(), n, deadline))
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " did not finish its answer in time");
        control::frame_decoder decoder;
        const std::string frame = std::string(header, 4) + body;
        decoder.feed(frame.data(), frame.size());
        auto reply = decoder.next();
        if ((*reply)["type"] == "error")
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " refused: " + reply->value("message", "no reason given"));
        if ((*reply)["type"] != "welcome")
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " answered the handshake with '" +
                                     (*reply)["type"].get<std::string>() + "'");
    } catch (const control::channel_closed &) {
        close(fd);
        throw std::runtime_error("the agent at " + agent.address.text() +
                                 " closed the connection during the handshake");
    } catch (const control::protocol_error &e) {
        close(fd);
        throw std::runtime_error("the agent at " + agent.address.text() +
                                 " answered with a malformed frame: " + e.what());
    } catch (...) {
        close(fd);
        throw;
    }
    return fd;
}

}  // namespace ipcbench::remote
