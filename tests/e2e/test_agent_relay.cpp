// No relay (agent protocol 3, remote/agent_handshake.hpp, control/frame_seal.hpp): a party
// without the token that receives a client's connection (a stale address, a DNS answer) and
// passes the handshake through to a real agent gets no session it can drive. The address the
// client dialled is in the transcript, and every frame after the handshake is sealed with a key
// of its direction derived from the token and both nonces: an injected, altered or replayed
// frame ends the session with a clear error. Everything stays on loopback.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::frame;
using ipcbench::test::frame_on;
using ipcbench::test::read_frame;
using ipcbench::test::run_ipchost;
using ipcbench::test::worker_session;
using nlohmann::json;

namespace {

constexpr const char *relay_token = "9c1f0b7e4d2a86f35e0c7b9a1d4f6e2c";

int listen_loopback(int &port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 4) == 0);
    REQUIRE(getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    return fd;
}

void send_bytes(int fd, const std::string &bytes) {
    (void)!send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
}

// What the relay saw: whether the agent ever welcomed a session through it, and what the agent
// said to the relay's own setup.
struct relay_log {
    std::atomic<bool> got_challenge{false}, got_auth{false}, setup_answered{false};
    std::string agent_said;
};

// A relay between one client and the agent: hello (its "dialled" rewritten to the agent's own
// address when `rewrite`), challenge and auth passed through; then its own setup, unsealed.
void relay_once(int listener, const agent &a, bool rewrite, relay_log &log) {
    const int c = accept(listener, nullptr, nullptr);
    if (c < 0) return;
    timeval tv{10, 0};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const int g = a.connect_raw();
    json hello = read_frame(c);
    if (rewrite && hello.is_object()) hello["dialled"] = a.address();
    send_bytes(g, frame(hello));
    const json challenge = read_frame(g);
    log.got_challenge = challenge.value("type", "") == "challenge";
    log.agent_said = challenge.dump();
    send_bytes(c, frame(challenge));
    const json auth = log.got_challenge ? read_frame(c) : json();
    log.got_auth = auth.is_object() && auth.value("type", "") == "auth";
    if (log.got_auth) {
        send_bytes(g, frame(auth));
        (void)read_frame(g);  // the welcome, sealed: the relay cannot read it
        send_bytes(g,
                   frame(ipcbench::test::setup_frame("", "socket.tcp", "creator", "127.0.0.1:0")));
        const json said = read_frame(g);
        log.setup_answered = said.value("type", "") == "opened";
        log.agent_said = said.dump();
    }
    close(g);
    close(c);
}

std::vector<std::string> peer_run(int port) {
    return {"--peer",     "127.0.0.1:" + std::to_string(port),
            "--token",    relay_token,
            "--plugin",   "socket.tcp",
            "--size",     "1K",
            "--mode",     "throughput",
            "--duration", "0.2",
            "--format",   "json"};
}

}  // namespace

TEST_CASE("a relay that passes the handshake through gets no session: the dialled address",
          "[remote]") {
    agent a({"--token", relay_token});
    int port = 0;
    const int listener = listen_loopback(port);
    relay_log log;
    std::thread relay([&] { relay_once(listener, a, false, log); });
    const auto run = run_ipchost(peer_run(port), {}, 60);
    relay.join();
    close(listener);
    INFO(run.out << run.err << log.agent_said);
    CHECK(run.exit_code != 0);
    CHECK_THAT(run.out + run.err,
               Catch::Contains("the client dialled 127.0.0.1:" + std::to_string(port) +
                               ", but the connection reached this agent at " + a.address()) &&
                   Catch::Contains("a relay or an address translation lies between them"));
    CHECK_FALSE(log.got_challenge);  // the agent refused the relayed hello outright
    CHECK_FALSE(log.setup_answered);
}

TEST_CASE("a relay that rewrites the dialled address is caught by the client's proof check",
          "[remote]") {
    agent a({"--token", relay_token});
    int port = 0;
    const int listener = listen_loopback(port);
    relay_log log;
    std::thread relay([&] { relay_once(listener, a, true, log); });
    const auto run = run_ipchost(peer_run(port), {}, 60);
    relay.join();
    close(listener);
    INFO(run.out << run.err << log.agent_said);
    CHECK(log.got_challenge);   // the agent answered the rewritten hello...
    CHECK_FALSE(log.got_auth);  // ...and the client sent nothing after its proof failed
    CHECK_FALSE(log.setup_answered);
    CHECK(run.exit_code != 0);
    CHECK_THAT(run.out + run.err, Catch::Contains("could not prove it holds this token"));
}

TEST_CASE("after the handshake an injected, altered or replayed frame ends the session",
          "[remote]") {
    agent a({"--token", relay_token});
    const json setup = ipcbench::test::setup_frame("", "socket.tcp", "creator", "127.0.0.1:0");
    const std::string failed = "failed its session authentication";
    SECTION("an unsealed frame, as a relay without the key would send") {
        worker_session s(a, relay_token);
        send_bytes(s.fd, frame(setup));
        const json said = read_frame(s.fd);
        INFO(said.dump());
        CHECK(said.value("type", "") == "error");
        CHECK_THAT(said.value("message", ""), Catch::Contains(failed));
    }
    SECTION("a sealed frame with one byte changed") {
        worker_session s(a, relay_token);
        std::string bytes = frame_on(s.fd, setup);
        bytes[10] = static_cast<char>(bytes[10] ^ 0x01);
        send_bytes(s.fd, bytes);
        const json said = read_frame(s.fd);
        INFO(said.dump());
        CHECK_THAT(said.value("message", ""), Catch::Contains(failed));
    }
    SECTION("a sealed frame sent twice: the first answered, the replay refused") {
        worker_session s(a, relay_token);
        const std::string bytes = frame_on(s.fd, setup);
        send_bytes(s.fd, bytes);
        const json first = read_frame(s.fd);
        INFO(first.dump());
        CHECK(first.value("type", "") == "opened");
        send_bytes(s.fd, bytes);
        const json second = read_frame(s.fd);
        INFO(second.dump());
        CHECK_THAT(second.value("message", ""), Catch::Contains(failed));
    }
    SECTION("the control: the same frame sealed in order is answered") {
        worker_session s(a, relay_token);
        const json said = s.request(setup);
        CHECK(said.value("type", "") == "opened");
        CHECK(said.contains("binding_key"));
    }
}
