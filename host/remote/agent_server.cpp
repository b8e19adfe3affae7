#include "remote/agent_server.hpp"

#include <spdlog/spdlog.h>
#include <algorithm>
#include <memory>
#include <optional>

#include "control/frame_codec.hpp"
#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/private_file.hpp"
#include "platform/run_directory.hpp"
#include "platform/signals.hpp"
#include "platform/stream_socket.hpp"
#include "remote/agent_hello.hpp"
#include "remote/agent_protocol.hpp"

namespace ipcbench::remote {
namespace {

using nlohmann::json;
using platform::now_ns;

std::int64_t seconds_ns(double s) {
    return static_cast<std::int64_t>(s * 1e9);
}

using platform::socket_handle;

void send_frame(socket_handle s, const json &message) {
    const std::string frame = control::encode_frame(message);
    try {
        platform::send_all(s, frame.data(), frame.size());
    } catch (const platform::socket_error &) {
        // the client is gone: nothing more to tell it
    }
}

void refuse(socket_handle s, const std::string &peer, const std::string &why) {
    spdlog::warn("client {}: refused: {}", peer, why);
    send_frame(s, {{"type", "error"}, {"message", why}});
    platform::close_socket(s);
}

std::string peer_name(socket_handle s) {
    const auto a = platform::peer_address(s);
    return host_port{a.host, a.port}.text();
}

// Requests the worker answers exactly once, and the answers.
bool is_request(const std::string &type) {
    return type == "setup" || type == "connect" || type == "run" || type == "probe" ||
           type == "close";
}
bool is_answer(const std::string &type) {
    return type == "opened" || type == "connected" || type == "result" || type == "error" ||
           type == "closed";
}

struct pending_client {
    socket_handle fd;
    std::string peer;
    std::int64_t deadline;
    control::frame_decoder decoder;
};

// One authenticated client and its worker. Frames are decoded on the way through (and relayed
// unchanged) so the agent knows whether the worker owes an answer: silence then is work, not
// idleness.
struct session {
    socket_handle fd = platform::no_socket;
    std::string peer;
    std::int64_t started = 0;
    std::int64_t idle_deadline = 0;
    int outstanding = 0;
    control::frame_decoder from_client, from_worker;
    platform::run_directory run_dir;
    std::unique_ptr<platform::child_process> worker;
};

class agent {
public:
    agent(const serve_options &options, socket_handle listener)
        : options_(options), listen_fd_(listener) {}

    int run() {
        while (!platform::interrupted() && !stop_) {
            std::vector<socket_handle> fds{listen_fd_};
            for (const auto &p : pending_) fds.push_back(p.fd);
            if (active_) {
                fds.push_back(active_->fd);
                fds.push_back(active_->worker->control_socket());
            }
            platform::readiness ready;
            try {
                ready = platform::wait_readable(fds, 200);
            } catch (const platform::socket_error &e) {
                spdlog::error("waiting for clients failed: {}", e.what());
                break;
            }
            expire();
            if (!ready.any()) continue;
            serve_events(fds, ready.ready);
        }
        end_session("the agent is stopping");
        for (auto &p : pending_) refuse(p.fd, p.peer, "the agent is stopping");
        spdlog::info("stopped after {} session(s)", sessions_);
        return 0;
    }

private:
    // fds as polled: the listener, the handshakes, then (if there was one) the session's client
    // and worker. The session goes first, so a client that just left frees the agent for a
    // handshake; new connections come last.
    void serve_events(const std::vector<socket_handle> &fds, const std::vector<bool> &ready) {
        const bool with_session = fds.size() >= 3 && active_ && fds[fds.size() - 2] == active_->fd;
        const std::size_t handshakes = fds.size() - 1 - (with_session ? 2 : 0);
        if (with_session) {
            const std::size_t s = fds.size() - 2;
            if (ready[s] && !relay(true)) {
                if (active_) end_session("the client disconnected");
            } else if (active_ && ready[s + 1] && !relay(false)) {
                if (active_) end_session("the worker ended");
            }
        }
        for (std::size_t i = 1; i <= handshakes; ++i)
            if (ready[i]) read_handshake(fds[i]);
        if (ready[0]) accept_client();
    }

    void accept_client() {
        const socket_handle fd = platform::accept_connection(listen_fd_);
        if (fd == platform::no_socket) return;
        if (pending_.size() >= max_pending_handshakes) {
            // Room for the newcomer: idle connections cannot lock the rightful client out.
            refuse(pending_.front().fd, pending_.front().peer,
                   "too many connections are authenticating; dropped the oldest");
            pending_.erase(pending_.begin());
        }
        const double handshake_s = std::min(options_.idle_timeout_s, max_handshake_s);
        pending_.push_back(
            pending_client{fd, peer_name(fd), now_ns() + seconds_ns(handshake_s), {}});
    }

    void expire() {
        const std::int64_t now = now_ns();
        const double handshake_s = std::min(options_.idle_timeout_s, max_handshake_s);
        for (auto it = pending_.begin(); it != pending_.end();) {
            if (now <= it->deadline) {
                ++it;
                continue;
            }
            refuse(it->fd, it->peer, fmt::format("no handshake within {:g} s", handshake_s));
            it = pending_.erase(it);
        }
        if (active_ && active_->outstanding == 0 && now > active_->idle_deadline) {
            send_frame(active_->fd,
                       {{"type", "error"},
                        {"message", fmt::format("idle for {:g} s: the agent ended the session",
                                                options_.idle_timeout_s)}});
            end_session(fmt::format("idle for {:g} s", options_.idle_timeout_s));
        }
    }

    // Reads what a client still authenticating sent; answers and forgets it once decided.
    void read_handshake(socket_handle fd) {
        auto it = std::find_if(pending_.begin(), pending_.end(),
                               [fd](const pending_client &p) { return p.fd == fd; });
        if (it == pending_.end()) return;
        char buf[4096];
        platform::io_result got{platform::io_status::closed, 0};
        try {
            got = platform::receive_some(fd, buf, sizeof buf, false);
        } catch (const platform::socket_error &) {
            // a reset connection: closed before the handshake
        }
        if (got.status == platform::io_status::would_block) return;
        std::optional<json> frame;
        std::string problem;
        if (got.status == platform::io_status::closed) {
            problem = "closed before the handshake";
        } else {
            try {
                it->decoder.feed(buf, got.bytes);
                frame = it->decoder.next();
            } catch (const control::protocol_error &e) {
                problem = std::string("malformed handshake: ") + e.what();
            }
        }
        if (!frame && problem.empty()) return;  // a partial frame: wait for the rest
        pending_client client = std::move(*it);
        pending_.erase(it);
        if (!problem.empty()) return refuse(client.fd, client.peer, problem);
        answer_hello(std::move(client), parse_hello(*frame));
    }

    void answer_hello(pending_client client, const std::variant<agent_hello, std::string> &parsed) {
        if (const auto *problem = std::get_if<std::string>(&parsed))
            return refuse(client.fd, client.peer, *problem);
        const agent_hello &hello = std::get<agent_hello>(parsed);
        if (hello.protocol != agent_protocol_version)
            return refuse(client.fd, client.peer,
                          fmt::format("protocol version {}, this agent speaks {}", hello.protocol,
                                      agent_protocol_version));
        if (!options_.insecure && !tokens_equal(options_.token, hello.token))
            return refuse(client.fd, client.peer, "wrong token");
        if (hello.done) {
            // The client's run is over: no worker; --once stops here.
            send_frame(client.fd, {{"type", "goodbye"}});
            platform::close_socket(client.fd);
            spdlog::info("client {}: run finished", client.peer);
            stop_ = options_.once;
            return;
        }
        if (active_)
            return refuse(client.fd, client.peer,
                          "busy: this agent serves one benchmark at a time and is serving " +
                              active_->peer + "; try again later");
        start_session(client, hello);
    }

    void start_session(const pending_client &client, const agent_hello &hello) {
        auto s = std::make_unique<session>();
        s->fd = client.fd;
        s->peer = client.peer;
        s->started = now_ns();
        s->idle_deadline = s->started + seconds_ns(options_.idle_timeout_s);
        try {
            s->worker = std::make_unique<platform::child_process>(
                platform::self_executable_path(),
                std::vector<std::string>{"worker", "--runtime-dir", s->run_dir.path().string(),
                                         "--agent"},
                "agent worker");
        } catch (const std::exception &e) {
            return refuse(client.fd, client.peer,
                          std::string("cannot start a worker: ") + e.what());
        }
        send_frame(s->fd,
                   {{"type", "welcome"}, {"agent", std::string("ipchost ") + IPCBENCH_VERSION}});
        spdlog::info("client {}: session started ({})", s->peer,
                     hello.client.empty() ? "?" : hello.client);
        active_ = std::move(s);
    }

    // Copies what is readable between the client and the worker, counting requests and answers;
    // false when the session must end.
    bool relay(bool from_client) {
        session &s = *active_;
        const socket_handle from = from_client ? s.fd : s.worker->control_socket();
        const socket_handle to = from_client ? s.worker->control_socket() : s.fd;
        char buf[65536];
        platform::io_result got{platform::io_status::closed, 0};
        try {
            got = platform::receive_some(from, buf, sizeof buf, false);
        } catch (const platform::socket_error &) {
            return false;
        }
        if (got.status == platform::io_status::closed) return false;
        if (got.status == platform::io_status::would_block) return true;
        control::frame_decoder &decoder = from_client ? s.from_client : s.from_worker;
        try {
            decoder.feed(buf, got.bytes);
            while (auto frame = decoder.next()) {
                const std::string &type = (*frame)["type"].get_ref<const std::string &>();
                if (from_client && is_request(type)) ++s.outstanding;
                if (!from_client && is_answer(type)) s.outstanding = std::max(0, s.outstanding - 1);
            }
        } catch (const control::protocol_error &e) {
            if (from_client) send_frame(s.fd, {{"type", "error"}, {"message", e.what()}});
            end_session(std::string("malformed frame from the ") +
                        (from_client ? "client: " : "worker: ") + e.what());
            return true;
        }
        s.idle_deadline = now_ns() + seconds_ns(options_.idle_timeout_s);
        try {
            return platform::send_all(to, buf, got.bytes);
        } catch (const platform::socket_error &) {
            return false;
        }
    }

    void end_session(const std::string &why) {
        if (!active_) return;
        platform::shutdown_socket(active_->fd);
        platform::close_socket(active_->fd);
        // The worker sees its control channel close and stops (closing its endpoints); a hung
        // one is killed.
        platform::shutdown_socket(active_->worker->control_socket());
        if (!active_->worker->wait(1000)) active_->worker->kill();
        active_->worker->wait(-1);
        spdlog::info("client {}: session ended after {:.1f} s ({}; worker {})", active_->peer,
                     (now_ns() - active_->started) / 1e9, why,
                     active_->worker->status().describe());
        active_.reset();
        ++sessions_;
        for (const auto &escaped : platform::kill_escaped_children())
            spdlog::warn("a process the session's plugin left behind, {}, was killed", escaped);
    }

    const serve_options &options_;
    socket_handle listen_fd_;
    std::vector<pending_client> pending_;
    std::unique_ptr<session> active_;
    int sessions_ = 0;
    bool stop_ = false;
};

// Decides the token: the one given, none with --insecure, else a fresh one written to a private
// file and printed once. Returns the file to remove at exit ("" if none); throws if refused.
std::filesystem::path settle_token(serve_options &options) {
    if (options.insecure) {
        spdlog::warn("--insecure: no token; anyone who reaches {} can run benchmarks here",
                     options.bind.text());
        options.token.clear();
        return {};
    }
    if (!options.token.empty()) return {};
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
    if (platform::running_as_root() && !options.allow_root) {
        spdlog::error(
            "refusing to serve as root (on Windows: elevated): the agent runs benchmarks for "
            "network clients with its own "
            "privileges. Run it as an ordinary user, or pass --allow-root");
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
    const socket_handle listen_fd = listen_tcp(options.bind);
    platform::install_interrupt_handlers();
    spdlog::info("serving on {} ({}), one client at a time", options.bind.text(),
                 options.insecure ? "no token: --insecure" : "token required");
    const int code = agent(options, listen_fd).run();
    platform::close_socket(listen_fd);
    std::error_code ignored;
    if (!token_file.empty()) std::filesystem::remove(token_file, ignored);
    return code;
}

}  // namespace ipcbench::remote
