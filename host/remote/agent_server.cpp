#include "remote/agent_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

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
#include "remote/agent_hello.hpp"
#include "remote/agent_protocol.hpp"

namespace ipcbench::remote {
namespace {

using nlohmann::json;
using platform::now_ns;

std::int64_t seconds_ns(double s) {
    return static_cast<std::int64_t>(s * 1e9);
}

void send_frame(int fd, const json &message) {
    const std::string frame = control::encode_frame(message);
    std::size_t sent = 0;
    while (sent < frame.size()) {
        ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;  // the client is gone: nothing more to tell it
        sent += static_cast<std::size_t>(n);
    }
}

void refuse(int fd, const std::string &peer, const std::string &why) {
    spdlog::warn("client {}: refused: {}", peer, why);
    send_frame(fd, {{"type", "error"}, {"message", why}});
    close(fd);
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
    int fd;
    std::string peer;
    std::int64_t deadline;
    control::frame_decoder decoder;
};

// One authenticated client and its worker. Frames are decoded on the way through (and relayed
// unchanged) so the agent knows whether the worker owes an answer: silence then is work, not
// idleness.
struct session {
    int fd = -1;
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
    agent(const serve_options &options, int listen_fd) : options_(options), listen_fd_(listen_fd) {}

    int run() {
        while (!platform::interrupted() && !stop_) {
            std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
            for (const auto &p : pending_) fds.push_back({p.fd, POLLIN, 0});
            if (active_) {
                fds.push_back({active_->fd, POLLIN, 0});
                fds.push_back({active_->worker->control_fd(), POLLIN, 0});
            }
            int rc = ::poll(fds.data(), fds.size(), 200);
            if (rc < 0 && errno != EINTR) break;
            expire();
            if (rc <= 0) continue;
            serve_events(fds);
        }
        end_session("the agent is stopping");
        for (auto &p : pending_) refuse(p.fd, p.peer, "the agent is stopping");
        spdlog::info("stopped after {} session(s)", sessions_);
        return 0;
    }

private:
    static bool ready(const pollfd &p) { return (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0; }

    // fds as polled: the listener, the handshakes, then (if there was one) the session's client
    // and worker. The session goes first, so a client that just left frees the agent for a
    // handshake; new connections come last.
    void serve_events(const std::vector<pollfd> &fds) {
        const bool with_session =
            fds.size() >= 3 && active_ && fds[fds.size() - 2].fd == active_->fd;
        const std::size_t handshakes = fds.size() - 1 - (with_session ? 2 : 0);
        if (with_session) {
            const std::size_t s = fds.size() - 2;
            if (ready(fds[s]) && !relay(true)) {
                if (active_) end_session("the client disconnected");
            } else if (active_ && ready(fds[s + 1]) && !relay(false)) {
                if (active_) end_session("the worker ended");
            }
        }
        for (std::size_t i = 1; i <= handshakes; ++i)
            if (ready(fds[i])) read_handshake(fds[i].fd);
        if (fds[0].revents & POLLIN) accept_client();
    }

    void accept_client() {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;
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
    void read_handshake(int fd) {
        auto it = std::find_if(pending_.begin(), pending_.end(),
                               [fd](const pending_client &p) { return p.fd == fd; });
        if (it == pending_.end()) return;
        char buf[4096];
        ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        std::optional<json> frame;
        std::string problem;
        if (n <= 0) {
            problem = "closed before the handshake";
        } else {
            try {
                it->decoder.feed(buf, static_cast<std::size_t>(n));
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
            close(client.fd);
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
                std::vector<std::string>{"worker", "--control-fd", "3", "--runtime-dir",
                                         s->run_dir.path().string(), "--agent"},
                3, "agent worker");
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
        const int from = from_client ? s.fd : s.worker->control_fd();
        const int to = from_client ? s.worker->control_fd() : s.fd;
        char buf[65536];
        ssize_t n = ::recv(from, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0) return false;
        if (n < 0) return errno == EAGAIN || errno == EINTR;
        control::frame_decoder &decoder = from_client ? s.from_client : s.from_worker;
        try {
            decoder.feed(buf, static_cast<std::size_t>(n));
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
        for (std::size_t sent = 0; sent < static_cast<std::size_t>(n);) {
            ssize_t m = ::send(to, buf + sent, static_cast<std::size_t>(n) - sent, MSG_NOSIGNAL);
            if (m <= 0) return false;
            sent += static_cast<std::size_t>(m);
        }
        return true;
    }

    void end_session(const std::string &why) {
        if (!active_) return;
        ::shutdown(active_->fd, SHUT_RDWR);
        close(active_->fd);
        // The worker sees its control channel close and stops (closing its endpoints); a hung
        // one is killed.
        ::shutdown(active_->worker->control_fd(), SHUT_RDWR);
        if (!active_->worker->wait(1000)) active_->worker->kill_group(SIGKILL);
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
    int listen_fd_;
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
            "refusing to serve as root: the agent runs benchmarks for network clients with its own "
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
    const int listen_fd = listen_tcp(options.bind);
    platform::install_interrupt_handlers();
    spdlog::info("serving on {} ({}), one client at a time", options.bind.text(),
                 options.insecure ? "no token: --insecure" : "token required");
    const int code = agent(options, listen_fd).run();
    close(listen_fd);
    std::error_code ignored;
    if (!token_file.empty()) std::filesystem::remove(token_file, ignored);
    return code;
}

}  // namespace ipcbench::remote
