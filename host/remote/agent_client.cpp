#include "remote/agent_client.hpp"

#include <unistd.h>

#include <spdlog/spdlog.h>
#include <stdexcept>

#include "control/control_channel.hpp"
#include "platform/monotonic_clock.hpp"
#include "remote/agent_protocol.hpp"

namespace ipcbench::remote {

void say_goodbye(const peer_agent &agent) {
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

int connect_agent(const peer_agent &agent, double timeout_s) {
    const int fd = connect_tcp(agent.address, timeout_s);
    try {
        control::control_channel channel(fd);
        channel.send({{"type", "hello"},
                      {"protocol", agent_protocol_version},
                      {"token", agent.token},
                      {"client", std::string("ipchost ") + IPCBENCH_VERSION}});
        auto reply = channel.receive(platform::now_ns() +
                                     static_cast<std::int64_t>(timeout_s * 1e9));
        if (!reply)
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " did not answer the handshake in time");
        if ((*reply)["type"] == "error")
            throw std::runtime_error("the agent at " + agent.address.text() + " refused: " +
                                     reply->value("message", "no reason given"));
        if ((*reply)["type"] != "welcome")
            throw std::runtime_error("the agent at " + agent.address.text() +
                                     " answered the handshake with '" +
                                     (*reply)["type"].get<std::string>() + "'");
        if (channel.has_buffered())
            throw std::runtime_error("the agent sent data before the worker started");
    } catch (const control::channel_closed &) {
        close(fd);
        throw std::runtime_error("the agent at " + agent.address.text() +
                                 " closed the connection during the handshake");
    } catch (...) {
        close(fd);
        throw;
    }
    return fd;
}

}  // namespace ipcbench::remote
