#include "remote/agent_server.hpp"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include "control/frame_codec.hpp"
#include "control/message_kind.hpp"
#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/open_file_limit.hpp"
#include "platform/private_file.hpp"
#include "platform/run_directory.hpp"
#include "platform/signals.hpp"
#include "platform/stream_socket.hpp"
#include "remote/address_rules.hpp"
#include "remote/agent_handshake.hpp"
#include "remote/agent_hello.hpp"
#include "remote/agent_protocol.hpp"
#include "remote/outbox.hpp"
#include "remote/peer_binding.hpp"
#include "remote/pending_handshakes.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::remote {
namespace {

using nlohmann::json;
using platform::now_ns;
using platform::socket_handle;

std::int64_t seconds_ns(double s) {
    return static_cast<std::int64_t>(s * 1e9);
}

// One attempt, never a wait: a peer that does not take a small error frame now loses it.
void send_frame_now(socket_handle s, const std::string &frame) {
    try {
        platform::send_some(s, frame.data(), frame.size());
    } catch (const platform::socket_error &) {
        // the peer is gone: nothing more to tell it
    }
}

void send_now(socket_handle s, const json &message) {
    send_frame_now(s, control::encode_frame(message));
}

void refuse(socket_handle s, const std::string &peer, const std::string &why) {
    spdlog::warn("client {}: refused: {}", peer, why);
    send_now(s, control::message(control::message_kind::error, {{"message", why}}));
    platform::close_socket(s);
}

// The messages a client may send a session's worker (control::message_kind_info::agent_relays),
// and which of them the worker answers exactly once (requests); everything else ends the
// session.
bool is_request(control::message_kind kind) {
    return control::info(kind).request;
}
// A session runs a worker or a peer client: each takes its own column of the table.
bool client_may_send(const std::optional<control::message_kind> &kind, bool peer_client) {
    return kind &&
           (peer_client ? control::info(*kind).peer_relays : control::info(*kind).agent_relays);
}
// What is readable on s now, without waiting; a reset connection reads as closed.
platform::io_result receive_now(socket_handle s, char *buf, std::size_t n) {
    try {
        return platform::receive_some(s, buf, n, false);
    } catch (const platform::socket_error &) {
        return {platform::io_status::closed, 0};
    }
}

bool is_answer(const std::optional<control::message_kind> &kind) {
    return kind && control::info(*kind).answer;
}

// One authenticated client and its worker. Every frame is decoded on the way through, checked
// against the session's policy, and relayed re-encoded (the worker sees exactly what was
// checked); the agent knows whether the worker owes an answer, so silence then is work, not
// idleness. Both directions are queued in bounded outboxes and written as the peer takes them.
struct session {
    socket_handle fd = platform::no_socket;
    socket_handle worker_fd = platform::no_socket;
    std::string peer;
    std::string source;  // the client's address without the port
    std::string unit;    // what it counts as for --max-sessions-per-client (client_unit)
    address_policy policy;
    std::int64_t started = 0;
    std::int64_t idle_deadline = 0;
    std::int64_t client_progress = 0;  // when the client last took bytes (or had none owed)
    int outstanding = 0;
    bool peer_client = false;    // its child is a peer client (peer_client/peer_client.hpp)
    bool creator_setup = false;  // the last setup asked for creators: check what they opened
    std::string binding_key;     // the key the last creator setup's endpoints take (hex)
    bool ended = false;          // its sockets are closed: removed once this turn is over
    // Sessions running on the agent (this one included), at most, since its worker was asked to
    // run and has not yet answered: what its result says it was measured beside (0: no run).
    int running_beside = 0;
    control::frame_decoder from_client{control::max_frame_bytes};
    control::frame_decoder from_worker{control::max_frame_bytes};
    // To the client: two whole frames of the largest size (a result of 20,000 streams) and a
    // little; to the worker: one, as the client's reading waits while it is full.
    outbox to_client{2 * control::max_frame_bytes + 65536};
    outbox to_worker{control::max_frame_bytes + 65536};
    std::unique_ptr<platform::run_directory> run_dir = std::make_unique<platform::run_directory>();
    std::unique_ptr<platform::child_process> worker;
    // Seals every frame to the client (from_client opens every frame from it): the session is
    // the handshake's (control/frame_seal.hpp).
    control::frame_seal to_client_seal{""};
    std::string sealed(const json &message) {
        return to_client_seal.seal(control::encode_frame(message));
    }
};

// Requests one client may have outstanding: ours sends one and waits for its answer.
constexpr int max_outstanding = 4;
// What ending a session waits for the worker before killing it (SIGTERM ends the agent in a
// second, this included).
constexpr int worker_exit_wait_ms = 400;

// A worker whose session ended: it was told (its control channel closed) and is left to exit on
// its own, closing what its plugin made, while the agent's loop goes on; one still running at
// `kill_at` is killed. Its run folder lives until it has exited.
struct ending_worker {
    std::unique_ptr<platform::child_process> worker;
    std::unique_ptr<platform::run_directory> run_dir;
    std::string peer;
    std::int64_t kill_at = 0;
    bool killed = false;
};

std::string host_of(const platform::socket_address &a) {
    const std::string canonical = platform::canonical_address(a.host);
    return canonical.empty() ? a.host : canonical;
}

class agent {
public:
    agent(const serve_options &options, socket_handle listener)
        : options_(options), listen_fd_(listener) {
        platform::set_nonblocking(listen_fd_);
    }

    int run() {
        while (!platform::interrupted() && !stop_) {
            std::vector<platform::poll_interest> interests{{listen_fd_, true, false}};
            for (const auto &p : pending_.all()) interests.push_back({p.fd, true, false});
            for (const auto &s : sessions_) {
                interests.push_back({s->fd, s->to_worker.empty(), !s->to_client.empty()});
                interests.push_back({s->worker_fd, true, !s->to_worker.empty()});
            }
            platform::poll_events ready;
            try {
                ready = platform::wait_ready(interests, ending_.empty() ? 200 : 10);
            } catch (const platform::socket_error &e) {
                spdlog::error("waiting for clients failed: {}", e.what());
                break;
            }
            if (ready.interrupted) break;
            expire();
            serve_events(interests, ready);
            remove_ended();
            reap_workers();
        }
        for (auto &s : sessions_) end_session(*s, "the agent is stopping", true);
        remove_ended();
        for (auto &p : pending_.expire(std::numeric_limits<std::int64_t>::max()))
            refuse(p.fd, p.peer, "the agent is stopping");
        // Every worker was told at once; they end together, each within the one bound.
        while (!ending_.empty()) {
            reap_workers();
            if (!ending_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        spdlog::info("stopped after {} session(s)", sessions_ended_);
        return 0;
    }

private:
    // interests as polled: the listener, the handshakes, then each session's client and worker
    // (the sessions as they were when polled: none is added or removed before this returns).
    // Sessions go first, so a client that just left frees a place for a handshake; new
    // connections come last.
    void serve_events(const std::vector<platform::poll_interest> &interests,
                      const platform::poll_events &ready) {
        const std::size_t handshakes = interests.size() - 1 - 2 * sessions_.size();
        for (std::size_t k = 0; k < sessions_.size(); ++k) {
            const std::size_t c = 1 + handshakes + 2 * k, w = c + 1;
            serve_session(*sessions_[k], ready.readable[c], ready.writable[c], ready.readable[w],
                          ready.writable[w]);
        }
        for (std::size_t i = 1; i <= handshakes; ++i)
            if (ready.readable[i]) read_handshake(interests[i].socket);
        if (ready.readable[0]) accept_clients();
    }

    void serve_session(session &s, bool client_in, bool client_out, bool worker_in,
                       bool worker_out) {
        if (!s.ended && client_out) flush_client(s);
        if (!s.ended && worker_out) flush_worker(s);
        if (!s.ended && worker_in) read_worker(s);
        if (!s.ended && client_in) read_client(s);
    }

    void accept_clients() {
        // Everything waiting, not one a turn: under a flood the queue must not overflow.
        for (int i = 0; i < 256; ++i) {
            const socket_handle fd = platform::accept_connection(listen_fd_);
            if (fd == platform::no_socket) return;
            platform::set_nonblocking(fd);
            const auto peer = platform::peer_address(fd);
            pending_client client;
            client.fd = fd;
            client.source = host_of(peer);
            client.unit = client_unit(client.source);
            client.peer = host_port{client.source, peer.port}.text();
            client.deadline = now_ns() + seconds_ns(handshake_seconds());
            const socket_handle admitted = client.fd;
            const auto speaking = [](const pending_client &c) {
                return platform::wait_readable({c.fd}, 0).any();
            };
            if (auto displaced = pending_.admit(std::move(client), now_ns(), speaking))
                refuse(displaced->fd, displaced->peer,
                       displaced->fd == admitted ? "too many handshakes from " + displaced->unit +
                                                       " are in progress; try again"
                                                 : "too many connections from " + displaced->unit +
                                                       " are authenticating; dropped the oldest");
        }
    }

    double handshake_seconds() const { return std::min(options_.idle_timeout_s, max_handshake_s); }

    void expire() {
        const std::int64_t now = now_ns();
        for (auto &p : pending_.expire(now))
            refuse(p.fd, p.peer, fmt::format("no handshake within {:g} s", handshake_seconds()));
        const double idle = options_.idle_timeout_s;
        for (auto &owned : sessions_) {
            session &s = *owned;
            if (!s.to_client.empty() && now - s.client_progress > seconds_ns(idle))
                end_session(s, fmt::format("the client took none of its answers for {:g} s", idle),
                            false);
            else if (s.outstanding == 0 && s.to_client.empty() && now > s.idle_deadline)
                end_session(s, fmt::format("idle for {:g} s: the agent ended the session", idle),
                            true);
        }
    }

    // Reads what a client still authenticating sent: its hello (answered with the challenge),
    // then its auth (answered with the session or a refusal, and forgotten).
    void read_handshake(socket_handle fd) {
        pending_client *client = pending_.find(fd);
        if (client == nullptr) return;
        char buf[1024];
        const platform::io_result got = receive_now(fd, buf, sizeof buf);
        if (got.status == platform::io_status::would_block) return;
        if (got.status == platform::io_status::closed && client->bytes_seen == 0) {
            // Connected and closed without a word: a readiness probe or a load balancer's
            // health check (a DaemonSet's tcpSocket probe every 10 s), not worth a warning.
            const pending_client silent = std::move(*pending_.take(fd));
            spdlog::debug("client {}: connected and closed without a word", silent.peer);
            platform::close_socket(silent.fd);
            return;
        }
        handshake_step step;
        if (got.status == platform::io_status::closed) {
            step.refusal = client->hello ? "it ended the handshake after the challenge (a client "
                                           "holding another token stops there)"
                                         : "closed before the handshake";
        } else {
            client->bytes_seen += got.bytes;
            step = take_handshake_frames(*client, buf, got.bytes);
        }
        if (step.answered || step.refusal.empty()) return;  // decided, or waiting for the rest
        pending_client refused = std::move(*pending_.take(fd));
        refuse(refused.fd, refused.peer, step.refusal);
    }

    // What the frames that arrived decided: nothing yet, the client answered (served or
    // refused, and no longer pending), or a refusal to send.
    struct handshake_step {
        bool answered = false;
        std::string refusal;
    };

    handshake_step take_handshake_frames(pending_client &client, const char *buf, std::size_t n) {
        try {
            client.decoder.feed(buf, n);
            while (auto frame = client.decoder.next()) {
                if (client.hello) {
                    pending_client decided = std::move(*pending_.take(client.fd));
                    answer_auth(std::move(decided), parse_auth(*frame));
                    return {true, ""};
                }
                if (std::string why = take_hello(client, parse_hello(*frame)); !why.empty())
                    return {false, why};
            }
        } catch (const control::protocol_error &e) {
            return {false, std::string("malformed handshake: ") + e.what()};
        }
        return {};
    }

    // The hello checked and answered with the challenge: "" or why the client is refused.
    std::string take_hello(pending_client &client,
                           const std::variant<agent_hello, std::string> &parsed) {
        if (const auto *problem = std::get_if<std::string>(&parsed)) return *problem;
        const agent_hello &hello = std::get<agent_hello>(parsed);
        if (hello.protocol != agent_protocol_version)
            return fmt::format(
                "agent protocol version {}: this agent ({}) speaks version {} only, where the "
                "token never crosses the wire and every frame of a session is bound to its "
                "handshake; update the client to ipchost {} or later",
                hello.protocol, std::string("ipchost ") + IPCBENCH_VERSION, agent_protocol_version,
                IPCBENCH_VERSION);
        const auto local = platform::local_address(client.fd);
        const std::string here = transcript_address(local.host, local.port);
        if (hello.dialled != here)
            return fmt::format(
                "the client dialled {}, but the connection reached this agent at {}: a relay or "
                "an address translation lies between them (connect to {} directly)",
                text::printable(hello.dialled, 64), here, here);
        client.hello = hello;
        client.hello_at = now_ns();
        client.agent_nonce = new_nonce();
        const handshake_transcript t{hello.nonce, client.agent_nonce, hello.session, hello.done,
                                     hello.dialled};
        json challenge = {{"nonce", client.agent_nonce}};
        if (options_.insecure)
            challenge["insecure"] = true;
        else
            challenge["proof"] = handshake_proof(options_.token, proof_role::agent, t);
        send_now(client.fd, control::message(control::message_kind::challenge, challenge));
        return "";
    }

    void answer_auth(pending_client client, const std::variant<agent_auth, std::string> &parsed) {
        if (const auto *problem = std::get_if<std::string>(&parsed))
            return refuse(client.fd, client.peer, *problem);
        const agent_hello &hello = *client.hello;
        const handshake_transcript t{hello.nonce, client.agent_nonce, hello.session, hello.done,
                                     hello.dialled};
        if (!options_.insecure &&
            !proof_matches(handshake_proof(options_.token, proof_role::client, t),
                           std::get<agent_auth>(parsed).proof))
            return refuse(client.fd, client.peer, "wrong token");
        const session_keys keys = derive_session_keys(options_.token, t);
        control::frame_seal seal(keys.to_client);
        if (hello.done) {
            // The client's run is over: no worker; --once stops here.
            send_frame_now(
                client.fd,
                seal.seal(control::encode_frame(control::message(control::message_kind::goodbye))));
            platform::close_socket(client.fd);
            spdlog::info("client {}: run finished", client.peer);
            stop_ = options_.once;
            return;
        }
        if (hello.roll_call) {
            // Who this agent is, for a fleet's roll call: no session, no worker.
            send_frame_now(client.fd, seal.seal(control::encode_frame(welcome_frame())));
            platform::close_socket(client.fd);
            spdlog::info("client {}: roll call answered", client.peer);
            return;
        }
        if (hello.peer_client && !options_.peer_runs)
            return refuse(client.fd, client.peer,
                          "this agent runs no cases against other agents (its operator started "
                          "it with ipchost serve --no-peer-runs)");
        if (const std::string why = busy_text(client.unit); !why.empty())
            return refuse(client.fd, client.peer, why);
        start_session(client, hello, keys);
    }

    // The welcome: the agent's version and labels, and how many sessions it runs of how many.
    json welcome_frame() const {
        return control::message(control::message_kind::welcome,
                                {{"agent", std::string("ipchost ") + IPCBENCH_VERSION},
                                 {"labels", options_.labels},
                                 {"sessions", live_sessions()},
                                 {"max_sessions", options_.max_sessions}});
    }

    int live_sessions() const {
        return static_cast<int>(std::count_if(sessions_.begin(), sessions_.end(),
                                              [](const auto &s) { return !s->ended; }));
    }

    // "" when a new session from `source` fits --max-sessions and --max-sessions-per-client,
    // else the "busy" answer: that the agent is full, never who it serves.
    std::string busy_text(const std::string &unit) const {
        if (live_sessions() >= options_.max_sessions)
            return fmt::format(
                "busy: this agent serves {} benchmark(s) at a time (ipchost serve "
                "--max-sessions) and is full; try again later",
                options_.max_sessions);
        const auto from_source =
            std::count_if(sessions_.begin(), sessions_.end(),
                          [&](const auto &s) { return !s->ended && s->unit == unit; });
        if (from_source >= options_.max_sessions_per_client)
            return fmt::format(
                "busy: this agent serves at most {} benchmark(s) at a time for one client "
                "(an address; every loopback address counts as one, an IPv6 /64 as one: ipchost "
                "serve --max-sessions-per-client); try again later",
                options_.max_sessions_per_client);
        return "";
    }

    void start_session(const pending_client &client, const agent_hello &hello,
                       const session_keys &keys) {
        auto s = std::make_unique<session>();
        s->to_client_seal = control::frame_seal(keys.to_client);
        s->from_client.open_with(control::frame_seal(keys.to_agent));
        s->fd = client.fd;
        s->peer = client.peer;
        s->source = client.source;
        s->unit = client.unit;
        platform::keep_alive(s->fd, options_.idle_timeout_s);
        s->started = s->client_progress = now_ns();
        s->idle_deadline = s->started + seconds_ns(options_.idle_timeout_s);
        s->policy.local_host = host_of(platform::local_address(client.fd));
        s->policy.client_host = client.source;
        s->policy.operator_rules = options_.rules;
        s->peer_client = hello.peer_client;
        try {
            s->worker = std::make_unique<platform::child_process>(
                platform::self_executable_path(),
                s->peer_client ? std::vector<std::string>{"peer-client"}
                               : std::vector<std::string>{"worker", "--runtime-dir",
                                                          s->run_dir->path().string(), "--agent"},
                s->peer_client ? "agent peer client" : "agent worker");
        } catch (const std::exception &e) {
            return refuse(client.fd, client.peer,
                          std::string("cannot start a worker: ") + e.what());
        }
        // Not made non-blocking: on Windows the worker's duplicate would share the mode. Reads
        // poll first and writes are send_some, which never waits.
        s->worker_fd = s->worker->control_socket();
        s->to_client.push(s->sealed(welcome_frame()));
        spdlog::info("client {}: session started ({}); {}; {} of {} session(s) running", s->peer,
                     hello.client.empty() ? "?" : hello.client,
                     s->peer_client ? std::string("a peer client, for cases against other agents")
                                    : fmt::format("its endpoints listen on {}, connect to {}",
                                                  s->policy.local_host, s->policy.client_host),
                     live_sessions() + 1, options_.max_sessions);
        sessions_.push_back(std::move(s));
        note_running_beside();
        flush_client(*sessions_.back());
    }

    // Every session waiting for its run's result has run beside this many sessions, at least.
    void note_running_beside() {
        const int live = live_sessions();
        for (auto &s : sessions_)
            if (!s->ended && s->running_beside > 0)
                s->running_beside = std::max(s->running_beside, live);
    }

    void flush_client(session &s) {
        bool moved = false;
        if (!s.to_client.flush(s.fd, moved))
            return end_session(s, "the client disconnected", false);
        if (moved || s.to_client.empty()) s.client_progress = now_ns();
    }

    void flush_worker(session &s) {
        bool moved = false;
        if (!s.to_worker.flush(s.worker_fd, moved)) end_session(s, "the worker ended", true);
    }

    // Reads what the client sent, checks each whole frame and queues it for the worker.
    void read_client(session &s) {
        char buf[65536];
        const platform::io_result got = receive_now(s.fd, buf, sizeof buf);
        if (got.status == platform::io_status::would_block) return;
        if (got.status == platform::io_status::closed)
            return end_session(s, "the client disconnected", false);
        bool whole_frame = false;
        const std::string problem = each_frame(s, s.from_client, buf, got.bytes, "client",
                                               [this, &s, &whole_frame](json &frame) {
                                                   whole_frame = true;
                                                   return from_client(s, frame);
                                               });
        if (!problem.empty()) end_session(s, problem, true);
        // Only a whole frame is activity: bytes of one never finished (a trickle) are not.
        if (!s.ended && whole_frame)
            s.idle_deadline = now_ns() + seconds_ns(options_.idle_timeout_s);
    }

    // "" when the frame went on to the worker, else why the session must end.
    std::string from_client(session &s, json &frame) {
        const auto kind = control::known_kind(frame);
        if (!client_may_send(kind, s.peer_client))
            return fmt::format(
                "the client sent a '{}' message; {} takes only {}", control::type_text(frame),
                s.peer_client ? "a peer client session" : "an agent",
                fmt::join(
                    control::names_where(s.peer_client ? &control::message_kind_info::peer_relays
                                                       : &control::message_kind_info::agent_relays),
                    ", "));
        std::string refused;
        if (kind == control::message_kind::peer_case) {
            refused = refuse_peer_case(frame, s.policy);
            frame["token"] = options_.token;  // over the local socketpair to its peer client
            s.running_beside = live_sessions();
        } else if (kind == control::message_kind::setup) {
            refused = refuse_setup(frame, s.policy);
            s.creator_setup = refused.empty() && frame["role"] == "creator";
            frame.erase("library");  // the worker finds the transport by id in its own folders
            frame.erase("runtime_dir");
            bind_to_client(s, frame);
        } else if (kind == control::message_kind::run) {
            refused = refuse_run(frame, s.policy);
            s.running_beside = live_sessions();
        }
        if (!refused.empty()) return refused;
        if (is_request(*kind) && ++s.outstanding > max_outstanding)
            return fmt::format(
                "the client sent more than {} requests without reading the answers; an agent "
                "serves one request at a time",
                max_outstanding);
        if (!s.to_worker.push(control::encode_frame(frame)))
            return "the client sent more than the worker could take";
        flush_worker(s);
        return "";
    }

    // A creator's endpoints serve only this session's client: a key of the agent's drawing and
    // the client's address go to the worker (never the client's own binding), and the key to
    // the client with the `opened` answer. A connector presents what the client gave.
    void bind_to_client(session &s, json &setup) {
        setup.erase("binding_peer");
        s.binding_key.clear();
        if (!s.creator_setup) return;
        setup.erase("binding_key");
        const auto transport = setup.find("transport");
        if (transport != setup.end() && transport->is_string() &&
            options_.rules.unbound_transports.count(transport->get<std::string>()) > 0)
            return;
        s.binding_key = new_binding_key();
        setup["binding_key"] = s.binding_key;
        setup["binding_peer"] = s.policy.client_host;
    }

    // Reads what the worker answered and queues it for the client, within the bound.
    void read_worker(session &s) {
        char buf[65536];
        for (int i = 0; i < 16 && !s.ended; ++i) {  // a large result in few turns
            const platform::io_result got = receive_now(s.worker_fd, buf, sizeof buf);
            if (got.status == platform::io_status::would_block) break;
            if (got.status == platform::io_status::closed)
                return end_session(s, "the worker ended", true);
            const std::string problem =
                each_frame(s, s.from_worker, buf, got.bytes, "worker",
                           [this, &s](json &frame) { return from_worker(s, frame); });
            if (!problem.empty()) return end_session(s, problem, true);
            if (got.bytes < sizeof buf) break;
        }
        if (!s.ended) flush_client(s);
    }

    // Feeds what arrived to the decoder and hands each whole frame to on_frame while the
    // session lives and no frame was refused: "" or why the session must end.
    template <class F>
    std::string each_frame(const session &s, control::frame_decoder &decoder, const char *buf,
                           std::size_t n, const char *from, F &&on_frame) {
        try {
            decoder.feed(buf, n);
            while (!s.ended)
                if (auto frame = decoder.next()) {
                    if (std::string problem = on_frame(*frame); !problem.empty()) return problem;
                } else {
                    break;
                }
        } catch (const control::protocol_error &e) {
            return std::string("malformed frame from the ") + from + ": " + e.what();
        }
        return "";
    }

    std::string from_worker(session &s, json &frame) {
        const auto kind = control::known_kind(frame);
        if (is_answer(kind)) s.outstanding = std::max(0, s.outstanding - 1);
        if (kind == control::message_kind::opened && s.creator_setup) {
            if (std::string why = refuse_opened(frame, s.policy); !why.empty()) return why;
            if (!s.binding_key.empty()) frame["binding_key"] = s.binding_key;  // the agent's word
        }
        if ((kind == control::message_kind::result || kind == control::message_kind::peer_result) &&
            s.running_beside > 0) {
            frame["agent_sessions"] = s.running_beside;  // the agent's word, not the worker's
            s.running_beside = 0;
        }
        if (!s.to_client.push(s.sealed(frame)))
            return fmt::format(
                "the client does not read its answers: {} bytes are waiting, the bound is {}",
                s.to_client.pending(), s.to_client.limit());
        s.idle_deadline = now_ns() + seconds_ns(options_.idle_timeout_s);
        return "";
    }

    // Closes the session's sockets and tells its worker to end (its control channel closes),
    // without waiting: the worker exits on its own, closing its endpoints, and reap_workers
    // collects it (or kills it after worker_exit_wait_ms). The session itself is removed after
    // the turn (remove_ended), so no caller holds a reference to a freed one.
    void end_session(session &s, const std::string &why, bool tell_client) {
        if (s.ended) return;
        s.ended = true;
        if (tell_client) {
            // Sealed, after what the client is still owed (the sequence is the frames' order).
            bool moved = false;
            s.to_client.push(
                s.sealed(control::message(control::message_kind::error, {{"message", why}})));
            s.to_client.flush(s.fd, moved);
        }
        platform::shutdown_socket(s.fd);
        platform::close_socket(s.fd);
        platform::shutdown_socket(s.worker_fd);
        spdlog::info("client {}: session ended after {:.1f} s ({})", s.peer,
                     (now_ns() - s.started) / 1e9, why);
        ++sessions_ended_;
        ending_.push_back({std::move(s.worker), std::move(s.run_dir), s.peer,
                           now_ns() + std::int64_t{worker_exit_wait_ms} * 1'000'000, false});
    }

    // Collects the workers of ended sessions that have exited, kills those past their time, and
    // then what an ended worker's plugin left behind: every child of the agent but the workers
    // still running or ending.
    void reap_workers() {
        bool reaped = false;
        for (auto &e : ending_) {
            if (e.worker->wait(0)) {
                spdlog::info("client {}: its worker ended ({})", e.peer,
                             e.worker->status().describe());
                reaped = true;
            } else if (!e.killed && now_ns() >= e.kill_at) {
                e.worker->kill();
                e.killed = true;
            }
        }
        if (!reaped) return;
        ending_.erase(std::remove_if(ending_.begin(), ending_.end(),
                                     [](const ending_worker &e) { return e.worker->finished(); }),
                      ending_.end());
        std::vector<long> known;
        for (const auto &other : sessions_)
            if (!other->ended && other->worker) known.push_back(other->worker->pid());
        for (const auto &e : ending_) known.push_back(e.worker->pid());
        for (const auto &escaped : platform::kill_escaped_children(known))
            spdlog::warn("a process an ended session's plugin left behind, {}, was killed",
                         escaped);
    }

    void remove_ended() {
        sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                       [](const auto &s) { return s->ended; }),
                        sessions_.end());
    }

    const serve_options &options_;
    socket_handle listen_fd_;
    pending_handshakes pending_;
    std::vector<std::unique_ptr<session>> sessions_;
    std::vector<ending_worker> ending_;
    int sessions_ended_ = 0;
    bool stop_ = false;
};

// Why the token given by hand is refused ("" when it is not): no offline oracle for a weak one.
std::string weak_token(const serve_options &options) {
    if (options.insecure || options.token.empty()) return "";
    const double bits = token_entropy_bits(options.token);
    if (bits >= min_token_bits) return "";
    return fmt::format(
        "the token carries about {:.0f} bits of entropy, under the {:.0f} an agent needs: every "
        "challenge the agent sends, to anyone, is a proof made with it that a guess can be "
        "checked against offline. Use a generated token: serve without --token (it writes one "
        "to a private file), or --token-file FILE of one made with `head -c 32 /dev/urandom | "
        "od -An -tx1 | tr -d ' \\n' > FILE; chmod 600 FILE`",
        bits, min_token_bits);
}

// Decides the token: the one given, none with --insecure, else a fresh one written to a private
// file and printed once. Returns the file to remove at exit ("" if none); throws if refused.
std::filesystem::path settle_token(serve_options &options) {
    if (options.insecure) {
        spdlog::warn("--insecure: no token; anyone who reaches {} can run benchmarks here",
                     options.bind.text());
        options.token.clear();
        return {};
    }
    if (!options.token.empty()) return {};  // weak_token judged it
    options.token = generate_token();
    std::filesystem::path file = options.token_path;
    if (file.empty())
        file = platform::user_state_dir() / fmt::format("agent-{}.token", options.bind.port);
    platform::write_private_file(file, options.token + "\n");
    fmt::print(stderr,
               "ipchost serve: no --token given; generated one for this agent:\n  {}\n"
               "Clients pass it with --token-file {} (readable by you only) or --token.\n",
               options.token, file.string());
    return file;
}

}  // namespace

int serve(const serve_options &given) {
    serve_options options = given;
    if (options.max_sessions_per_client <= 0)
        options.max_sessions_per_client = (options.max_sessions + 1) / 2;
    if (platform::running_as_root() && !options.allow_root) {
        spdlog::error(
            "refusing to serve as root (on Windows: elevated): the agent runs benchmarks for "
            "network clients with its own "
            "privileges. Run it as an ordinary user, or pass --allow-root");
        return 2;
    }
    if (const std::string why = weak_token(options); !why.empty()) {
        spdlog::error("{}", why);
        return 2;
    }
    std::filesystem::path token_file;
    try {
        token_file = settle_token(options);
    } catch (const std::exception &e) {
        spdlog::error("cannot write the generated token: {} (pass --token-file or --token)",
                      e.what());
        return 1;
    }
    // Room for every handshake the fair set admits, and each session's client and worker.
    const auto per_sessions = 4 * static_cast<std::uint64_t>(options.max_sessions);
    if (const std::string why =
            platform::ensure_open_files(pending_handshakes::default_total + 64 + per_sessions);
        !why.empty())
        spdlog::warn("{}: fewer connections can wait for their handshake at once", why);
    const socket_handle listen_fd = listen_tcp(options.bind, 1024);
    platform::install_interrupt_handlers();
    spdlog::info("serving on {} ({}), {} session(s) at a time", options.bind.text(),
                 options.insecure ? "no token: --insecure" : "token required",
                 options.max_sessions);
    const int code = agent(options, listen_fd).run();
    platform::close_socket(listen_fd);
    std::error_code ignored;
    if (!token_file.empty()) std::filesystem::remove(token_file, ignored);
    return code;
}

}  // namespace ipcbench::remote
