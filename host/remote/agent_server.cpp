#include "remote/agent_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <memory>
#include <optional>

#include "control/frame_codec.hpp"
#include "platform/child_process.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/run_directory.hpp"
#include "platform/signals.hpp"
#include "remote/agent_protocol.hpp"

namespace ipcbench::remote {
namespace {

using nlohmann::json;
using platform::now_ns;

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

// Copies what is readable from one descriptor to the other; false at end of stream.
bool relay(int from, int to) {
    char buf[65536];
    ssize_t n = ::recv(from, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EINTR;
    std::size_t sent = 0;
    while (sent < static_cast<std::size_t>(n)) {
        ssize_t m = ::send(to, buf + sent, static_cast<std::size_t>(n) - sent, MSG_NOSIGNAL);
        if (m <= 0) return false;
        sent += static_cast<std::size_t>(m);
    }
    return true;
}

struct pending_client {
    int fd;
    std::string peer;
    std::int64_t deadline;
    control::frame_decoder decoder;
};

struct session {
    int fd;
    std::string peer;
    std::int64_t started;
    platform::run_directory run_dir;
    std::unique_ptr<platform::child_process> worker;
};

}  // namespace

int serve(const serve_options &options) {
    if (options.token.empty() && !options.bind.loopback() && !options.insecure) {
        spdlog::error(
            "refusing to serve on {} without a token: anyone who reaches it could run "
            "benchmarks here. Set --token or --token-file, or pass --insecure",
            options.bind.text());
        return 2;
    }
    const int listen_fd = listen_tcp(options.bind);
    platform::install_interrupt_handlers();
    spdlog::info("serving on {} ({}), one client at a time", options.bind.text(),
                 options.token.empty() ? "no token" : "token required");
    std::optional<pending_client> pending;
    std::unique_ptr<session> active;
    int sessions = 0;

    auto end_session = [&](const std::string &why) {
        if (!active) return;
        ::shutdown(active->fd, SHUT_RDWR);
        close(active->fd);
        // The worker sees its control channel close and stops; a hung one is killed.
        if (!active->worker->wait(1000)) active->worker->kill_group(SIGKILL);
        active->worker->wait(-1);
        spdlog::info("client {}: session ended after {:.1f} s ({}; worker {})", active->peer,
                     (now_ns() - active->started) / 1e9, why, active->worker->status().describe());
        active.reset();
        ++sessions;
    };

    while (!platform::interrupted()) {
        std::vector<pollfd> fds{{listen_fd, POLLIN, 0}};
        if (pending) fds.push_back({pending->fd, POLLIN, 0});
        if (active) {
            fds.push_back({active->fd, POLLIN, 0});
            fds.push_back({active->worker->control_fd(), POLLIN, 0});
        }
        int rc = ::poll(fds.data(), fds.size(), 200);
        if (rc < 0 && errno != EINTR) break;

        if (pending && now_ns() > pending->deadline) {
            refuse(pending->fd, pending->peer,
                   fmt::format("no handshake within {:g} s", options.idle_timeout_s));
            pending.reset();
        }
        if (rc <= 0) continue;
        std::size_t i = 1;
        if (pending && i < fds.size() && fds[i].fd == pending->fd) {
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char buf[4096];
                ssize_t n = ::recv(pending->fd, buf, sizeof buf, MSG_DONTWAIT);
                std::optional<json> hello;
                std::string problem;
                if (n <= 0) {
                    problem = "closed before the handshake";
                } else {
                    try {
                        pending->decoder.feed(buf, static_cast<std::size_t>(n));
                        hello = pending->decoder.next();
                    } catch (const control::protocol_error &e) {
                        problem = std::string("malformed handshake: ") + e.what();
                    }
                }
                if (hello) {
                    if ((*hello)["type"] != "hello")
                        problem =
                            "expected a hello, got '" + (*hello)["type"].get<std::string>() + "'";
                    else if (hello->value("protocol", 0) != agent_protocol_version)
                        problem = fmt::format("protocol version {}, this agent speaks {}",
                                              hello->value("protocol", 0), agent_protocol_version);
                    else if (!options.token.empty() &&
                             !tokens_equal(options.token, hello->value("token", "")))
                        problem = "wrong token";
                }
                if (!problem.empty()) {
                    refuse(pending->fd, pending->peer, problem);
                    pending.reset();
                } else if (hello && hello->value("done", false)) {
                    // The client's run is over: no worker; --once stops here.
                    send_frame(pending->fd, {{"type", "goodbye"}});
                    close(pending->fd);
                    spdlog::info("client {}: run finished", pending->peer);
                    pending.reset();
                    if (options.once) break;
                } else if (hello) {
                    auto s = std::make_unique<session>();
                    s->fd = pending->fd;
                    s->peer = pending->peer;
                    s->started = now_ns();
                    try {
                        s->worker = std::make_unique<platform::child_process>(
                            platform::self_executable_path(),
                            std::vector<std::string>{"peer", "--control-fd", "3", "--runtime-dir",
                                                     s->run_dir.path().string()},
                            3);
                        send_frame(s->fd, {{"type", "welcome"},
                                           {"agent", std::string("ipchost ") + IPCBENCH_VERSION}});
                        spdlog::info("client {}: session started ({})", s->peer,
                                     hello->value("client", "?"));
                        active = std::move(s);
                    } catch (const std::exception &e) {
                        refuse(pending->fd, pending->peer,
                               std::string("cannot start a worker: ") + e.what());
                    }
                    pending.reset();
                }
            }
            ++i;
        }
        if (active && i + 1 < fds.size() + 1 && i < fds.size()) {
            const bool client_event = fds[i].revents & (POLLIN | POLLHUP | POLLERR);
            const bool worker_event = fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR);
            if (client_event && !relay(active->fd, active->worker->control_fd()))
                end_session("the client disconnected");
            else if (worker_event && !relay(active->worker->control_fd(), active->fd))
                end_session("the worker ended");
        }
        // New connections last, so a client that just left frees the agent first.
        if (fds[0].revents & POLLIN) {
            int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                const std::string peer = peer_name(fd);
                if (active || pending)
                    refuse(fd, peer,
                           "busy: this agent serves one benchmark at a time and is serving " +
                               (active ? active->peer : pending->peer) + "; try again later");
                else
                    pending = pending_client{
                        fd,
                        peer,
                        now_ns() + static_cast<std::int64_t>(options.idle_timeout_s * 1e9),
                        {}};
            }
        }
    }
    end_session("the agent is stopping");
    if (pending) refuse(pending->fd, pending->peer, "the agent is stopping");
    close(listen_fd);
    spdlog::info("stopped after {} session(s)", sessions);
    return 0;
}

}  // namespace ipcbench::remote
