#include "remote/agent_client.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <stdexcept>

#include "control/control_channel.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/stream_socket.hpp"
#include "remote/agent_protocol.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::remote {

void say_goodbye(const agent_address &agent) {
    platform::socket_handle fd = platform::no_socket;
    try {
        fd = connect_tcp(agent.address, 5);
        control::control_channel channel(fd);
        channel.send(control::message(
            control::message_kind::hello,
            {{"protocol", agent_protocol_version}, {"token", agent.token}, {"done", true}}));
        channel.receive(platform::now_ns() + 5'000'000'000);
    } catch (const std::exception &e) {
        spdlog::debug("goodbye to the agent at {}: {}", agent.address.text(), e.what());
    }
    platform::close_socket(fd);
}

bool finish_session(platform::socket_handle fd, int timeout_ms) {
    if (fd == platform::no_socket) return true;
    const std::int64_t deadline = platform::now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    try {
        platform::shutdown_sending(fd);
        char drop[4096];
        for (;;) {
            const std::int64_t left = deadline - platform::now_ns();
            if (left <= 0) return false;
            const platform::readiness r =
                platform::wait_readable({fd}, static_cast<int>(left / 1'000'000) + 1);
            if (r.interrupted) return false;
            if (!r.any()) continue;
            if (platform::receive_some(fd, drop, sizeof drop, false).status ==
                platform::io_status::closed)
                return true;
        }
    } catch (const platform::socket_error &) {
        return true;  // reset: the agent's end is gone too
    }
}

namespace {

using nlohmann::json;

// The agent could not be reached, or what answered is no agent: the cause, for the log or the
// client (agent_address::hide_unreached_cause).
struct unreached : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Reads exactly n bytes by deadline: the agent's answer must be taken off the socket without
// reading into what the worker sends right after it.
bool recv_exact(platform::socket_handle fd, char *buf, std::size_t n, std::int64_t deadline) {
    std::size_t got = 0;
    while (got < n) {
        const std::int64_t left = deadline - platform::now_ns();
        if (left <= 0 ||
            !platform::wait_readable({fd}, static_cast<int>(left / 1'000'000) + 1).any())
            return false;
        platform::io_result r;
        try {
            r = platform::receive_some(fd, buf + got, n - got, true);
        } catch (const platform::socket_error &) {
            throw control::channel_closed("closed");
        }
        if (r.status != platform::io_status::done) throw control::channel_closed("closed");
        got += r.bytes;
    }
    return true;
}

std::string at(const agent_address &agent, const std::string &what) {
    return "the agent at " + agent.address.text() + " " + what;
}

// The agent's answer to the hello: returns the "welcome", throws with what it said otherwise.
json read_welcome(platform::socket_handle fd, const agent_address &agent, std::int64_t deadline) {
    char header[4];
    if (!recv_exact(fd, header, 4, deadline))
        throw unreached(at(agent, "did not answer the handshake in time"));
    const std::uint32_t n = (std::uint32_t{static_cast<unsigned char>(header[0])} << 24) |
                            (std::uint32_t{static_cast<unsigned char>(header[1])} << 16) |
                            (std::uint32_t{static_cast<unsigned char>(header[2])} << 8) |
                            std::uint32_t{static_cast<unsigned char>(header[3])};
    if (n == 0 || n > 65536) throw unreached(at(agent, "answered with a malformed frame"));
    std::string body(n, '\0');
    if (!recv_exact(fd, body.data(), n, deadline))
        throw unreached(at(agent, "did not finish its answer in time"));
    control::frame_decoder decoder;
    const std::string frame = std::string(header, 4) + body;
    decoder.feed(frame.data(), frame.size());
    auto reply = decoder.next();
    if (control::is(*reply, control::message_kind::error))
        throw std::runtime_error("the agent at " + agent.address.text() + " refused: " +
                                 text::printable(reply->value("message", "no reason given"), 300));
    if (!control::is(*reply, control::message_kind::welcome))
        throw unreached(
            at(agent, "answered the handshake with '" + control::type_text(*reply) + "'"));
    return *reply;
}

// The connection and the handshake; a failure that is not the agent's own refusal is an
// `unreached` naming the cause.
platform::socket_handle open_session(const agent_address &agent, double timeout_s,
                                     agent_session session, json *welcome = nullptr) {
    platform::socket_handle fd = platform::no_socket;
    try {
        fd = connect_tcp(agent.address, timeout_s);
    } catch (const std::exception &e) {
        throw unreached(e.what());
    }
    try {
        control::control_channel channel(fd);
        json hello = {{"protocol", agent_protocol_version},
                      {"token", agent.token},
                      {"client", std::string("ipchost ") + IPCBENCH_VERSION}};
        if (session == agent_session::peer_client) hello["session"] = "peer_client";
        if (session == agent_session::roll_call) hello["session"] = "roll_call";
        channel.send(control::message(control::message_kind::hello, std::move(hello)));
        json answer = read_welcome(fd, agent,
                                   platform::now_ns() + static_cast<std::int64_t>(timeout_s * 1e9));
        if (welcome) *welcome = std::move(answer);
    } catch (const control::channel_closed &) {
        platform::close_socket(fd);
        throw unreached(at(agent, "closed the connection during the handshake"));
    } catch (const control::protocol_error &e) {
        platform::close_socket(fd);
        throw unreached(at(agent, std::string("answered with a malformed frame: ") + e.what()));
    } catch (...) {
        platform::close_socket(fd);
        throw;
    }
    return fd;
}

}  // namespace

platform::socket_handle connect_agent(const agent_address &agent, double timeout_s,
                                      agent_session session) {
    try {
        return open_session(agent, timeout_s, session);
    } catch (const unreached &e) {
        if (!agent.hide_unreached_cause) throw std::runtime_error(e.what());
        spdlog::warn("no agent answered at {}: {}", agent.address.text(), e.what());
        throw std::runtime_error("no ipchost agent answered at " + agent.address.text() +
                                 " (unreachable, refused, silent or not an agent; the agent's "
                                 "log says which)");
    }
}

agent_identity roll_call(const agent_address &agent, double timeout_s) {
    json welcome;
    platform::close_socket(open_session(agent, timeout_s, agent_session::roll_call, &welcome));
    agent_identity out;
    if (const auto v = welcome.find("agent"); v != welcome.end() && v->is_string())
        out.version = text::printable(v->get<std::string>(), 80);
    if (const auto v = welcome.find("labels"); v != welcome.end())
        out.labels = labels_from_wire(*v, out.dropped_labels);
    for (auto [field, into] :
         {std::pair{"sessions", &out.sessions}, std::pair{"max_sessions", &out.max_sessions}})
        if (const auto v = welcome.find(field); v != welcome.end() && v->is_number_integer())
            *into = static_cast<int>(std::clamp<std::int64_t>(v->get<std::int64_t>(), 0, 1 << 20));
    return out;
}

}  // namespace ipcbench::remote
