#include "remote/agent_client.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "control/control_channel.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "platform/stream_socket.hpp"
#include "remote/agent_handshake.hpp"
#include "remote/agent_protocol.hpp"
#include "text/printable_text.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::remote {

void say_goodbye(const agent_address &agent) {
    platform::socket_handle fd = platform::no_socket;
    try {
        fd = connect_tcp(agent.address, 5);
        authenticate(fd, agent, "worker", true, platform::now_ns() + 5'000'000'000);
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

// A frame's JSON, or nullopt when it is none (a sealed frame's tag follows its JSON).
std::optional<json> parsed(const char *text, std::size_t n) {
    try {
        return text::parse_untrusted_json(text, n, {control::max_frame_depth, 65536});
    } catch (const text::json_error &) {
        return std::nullopt;
    }
}

std::string at(const agent_address &agent, const std::string &what) {
    return "the agent at " + agent.address.text() + " " + what;
}

// One frame of the agent's, by deadline: an "error" is its refusal, thrown with what it said;
// anything that is no frame is an `unreached`.
json read_answer(platform::socket_handle fd, const agent_address &agent, std::int64_t deadline,
                 control::frame_seal *opener = nullptr) {
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
    std::optional<json> reply;
    if (opener != nullptr) {
        // The agent's refusal (wrong token, busy) comes unsealed, as it cannot know the keys of
        // a client it refuses; everything else after the auth is sealed.
        if (const auto opened = opener->try_open(body.data(), n)) {
            reply = parsed(opened->data(), opened->size());
        } else {
            reply = parsed(body.data(), body.size());
            if (reply && !control::is(*reply, control::message_kind::error))
                throw unreached(at(agent,
                                   "answered the handshake with a frame not sealed with "
                                   "this session's key (an agent of protocol " +
                                       std::to_string(agent_protocol_version) +
                                       " seals it; a relay cannot)"));
        }
        if (!reply || !reply->is_object())
            throw unreached(at(agent, "answered with a malformed frame"));
    } else {
        control::frame_decoder decoder;
        const std::string frame = std::string(header, 4) + body;
        decoder.feed(frame.data(), frame.size());
        reply = decoder.next();
    }
    if (control::is(*reply, control::message_kind::error))
        throw std::runtime_error("the agent at " + agent.address.text() + " refused: " +
                                 text::printable(reply->value("message", "no reason given"), 300));
    return *reply;
}

// The agent's nonce from its challenge, and whether it proved it holds the client's token
// (throws otherwise). Nothing derived from the token has been sent yet.
std::string check_challenge(const json &challenge, const agent_address &agent,
                            handshake_transcript &t) {
    if (!control::is(challenge, control::message_kind::challenge))
        throw unreached(at(agent, "answered the hello with '" + control::type_text(challenge) +
                                      "', not a challenge (an agent of protocol " +
                                      std::to_string(agent_protocol_version) + " sends one)"));
    const auto nonce = challenge.find("nonce");
    if (nonce == challenge.end() || !nonce->is_string() || !is_nonce(nonce->get<std::string>()))
        throw unreached(at(agent, "sent a challenge without a valid nonce"));
    t.agent_nonce = nonce->get<std::string>();
    const auto insecure = challenge.find("insecure");
    if (insecure != challenge.end() && insecure->is_boolean() && insecure->get<bool>()) {
        if (!agent.token.empty())
            throw unreached(at(agent,
                               "runs without a token (ipchost serve --insecure), so it "
                               "cannot prove it is the agent you meant; to use it, run "
                               "this client without a token"));
        return "";
    }
    if (agent.token.empty())
        throw std::runtime_error("the agent at " + agent.address.text() +
                                 " requires a token: pass --token-file FILE or --token-env NAME");
    const auto proof = challenge.find("proof");
    if (proof == challenge.end() || !proof->is_string() ||
        !proof_matches(handshake_proof(agent.token, proof_role::agent, t),
                       proof->get<std::string>()))
        // Only an agent sends a well-formed challenge: this is no port scan's answer.
        throw std::runtime_error(at(agent,
                                    "could not prove it holds this token: its token is "
                                    "another (nothing that reveals this one was sent)"));
    return handshake_proof(agent.token, proof_role::client, t);
}

}  // namespace

json authenticate(platform::socket_handle fd, const agent_address &agent,
                  const std::string &session, bool done, std::int64_t deadline, agent_link *link) {
    control::control_channel channel(fd);
    const auto dialled = platform::peer_address(fd);
    handshake_transcript t{new_nonce(), "", session, done,
                           transcript_address(dialled.host, dialled.port)};
    json hello = {{"protocol", agent_protocol_version},
                  {"nonce", t.client_nonce},
                  {"dialled", t.dialled},
                  {"client", std::string("ipchost ") + IPCBENCH_VERSION}};
    if (session != "worker") hello["session"] = session;
    if (done) hello["done"] = true;
    channel.send(control::message(control::message_kind::hello, std::move(hello)));
    const std::string proof = check_challenge(read_answer(fd, agent, deadline), agent, t);
    channel.send(control::message(control::message_kind::auth, {{"proof", proof}}));
    const session_keys keys = derive_session_keys(agent.token, t);
    control::frame_seal opener(keys.to_client);
    json answer = read_answer(fd, agent, deadline, &opener);
    if (link != nullptr) {
        link->fd = fd;
        link->to_agent = control::frame_seal(keys.to_agent);
        link->from_agent = std::move(opener);
    }
    return answer;
}

namespace {

// The connection and the handshake; a failure that is not the agent's own refusal is an
// `unreached` naming the cause.
agent_link open_session(const agent_address &agent, double timeout_s, agent_session session,
                        json *welcome = nullptr) {
    platform::socket_handle fd = platform::no_socket;
    agent_link link;
    const std::int64_t deadline = platform::now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
    try {
        fd = connect_tcp(agent.address, timeout_s);
    } catch (const std::exception &e) {
        throw unreached(e.what());
    }
    try {
        const char *kind = session == agent_session::peer_client ? "peer_client"
                           : session == agent_session::roll_call ? "roll_call"
                                                                 : "worker";
        json answer = authenticate(fd, agent, kind, false, deadline, &link);
        if (!control::is(answer, control::message_kind::welcome))
            throw unreached(
                at(agent, "answered the handshake with '" + control::type_text(answer) + "'"));
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
    return link;
}

}  // namespace

agent_link connect_agent(const agent_address &agent, double timeout_s, agent_session session) {
    const std::int64_t start = platform::now_ns();
    if (agent.hide_unreached_cause) timeout_s = std::min(timeout_s, hidden_failure_s);
    try {
        return open_session(agent, timeout_s, session);
    } catch (const unreached &e) {
        if (!agent.hide_unreached_cause) throw std::runtime_error(e.what());
        spdlog::warn("no agent answered at {}: {}", agent.address.text(), e.what());
        // One shape and one time for every cause: a refused port, a service that is no agent
        // and a silent host are told apart neither by the text nor by when it comes.
        const std::int64_t end = start + static_cast<std::int64_t>(hidden_failure_s * 1e9);
        while (platform::now_ns() < end && !platform::interrupted())
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        throw std::runtime_error("no ipchost agent answered at " + agent.address.text() +
                                 " (unreachable, refused, silent or not an agent; the agent's "
                                 "log says which)");
    }
}

agent_identity roll_call(const agent_address &agent, double timeout_s) {
    json welcome;
    platform::close_socket(open_session(agent, timeout_s, agent_session::roll_call, &welcome).fd);
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
