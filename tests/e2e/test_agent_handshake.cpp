// The agent handshake of protocol 3 (remote/agent_handshake.hpp): no bearer secret on the wire.
// A party without the token learns nothing from it: an impostor "agent" that every kind of
// client reaches (a --peer run, a fleet's roll call, an agent's peer client for --from) gets one
// hello and nothing made with the token; a stranger at the agent gets a challenge, and neither a
// replayed auth nor the agent's own proof sent back opens a session. HMAC-SHA256 itself is
// OpenSSL's (or CNG's), checked against RFC 4231. Loopback only.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "platform/crypto.hpp"
#include "remote/agent_handshake.hpp"
#include "remote/agent_protocol.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::client_hello;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::run_ipchost;
using nlohmann::json;
namespace remote = ipcbench::remote;

namespace {

const std::string secret = "correct-horse-battery-staple-7f3a9c";

std::string hex_of(const std::string &bytes) {
    return remote::hex(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size());
}

// A listener on 127.0.0.1 that plays an agent without the token: it answers each hello with a
// well-formed challenge whose proof is made with another token, and records every frame each
// client sent until it closed.
class impostor {
public:
    impostor() {
        fd_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(bind(fd_, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
        REQUIRE(listen(fd_, 16) == 0);
        REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &len) == 0);
        port_ = ntohs(a.sin_port);
        timeval tv{10, 0};
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        thread_ = std::thread([this] {
            while (serve_one()) {
            }
        });
    }
    ~impostor() {
        shutdown(fd_, SHUT_RDWR);
        if (thread_.joinable()) thread_.join();
        close(fd_);
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    // Every frame every client sent, once the client is done: no more connections are taken.
    std::vector<json> frames() {
        shutdown(fd_, SHUT_RDWR);
        if (thread_.joinable()) thread_.join();
        return frames_;
    }

private:
    bool serve_one() {
        const int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return false;
        timeval tv{5, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        for (json m; !(m = read_frame(c)).is_null();) {
            frames_.push_back(m);
            if (m.value("type", "") != "hello") continue;
            const remote::handshake_transcript t =
                ipcbench::test::transcript_of(m, remote::new_nonce());
            const std::string challenge = frame(
                {{"type", "challenge"},
                 {"nonce", t.agent_nonce},
                 {"proof", remote::handshake_proof("a guess", remote::proof_role::agent, t)}});
            (void)!write(c, challenge.data(), challenge.size());
        }
        close(c);
        return true;
    }
    int fd_ = -1, port_ = 0;
    std::thread thread_;
    std::vector<json> frames_;
};

// What an impostor got from one kind of client: only hellos, none carrying the token or anything
// made with it, each with a fresh nonce.
void check_learned_nothing(const std::vector<json> &frames) {
    REQUIRE(!frames.empty());
    const std::size_t hellos = frames.size();
    std::set<std::string> nonces;
    for (const auto &f : frames) {
        INFO(f.dump());
        CHECK(f.value("type", "") == "hello");
        CHECK(f.value("protocol", 0) == remote::agent_protocol_version);
        CHECK(f.find("token") == f.end());
        CHECK(f.find("proof") == f.end());
        CHECK(f.dump().find(secret) == std::string::npos);
        CHECK(f.dump().find(hex_of(secret)) == std::string::npos);
        CHECK(remote::is_nonce(f.value("nonce", "")));
        nonces.insert(f.value("nonce", ""));
    }
    CHECK(nonces.size() == hellos);
}

}  // namespace

TEST_CASE("HMAC-SHA256 is the RFC 4231 function, and nonces are fresh", "[remote][unit]") {
    // RFC 4231, test cases 1 and 2.
    const auto one = ipcbench::platform::hmac_sha256(std::string(20, '\x0b'), "Hi There");
    CHECK(remote::hex(one.data(), one.size()) ==
          "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const auto two = ipcbench::platform::hmac_sha256("Jefe", "what do ya want for nothing?");
    CHECK(remote::hex(two.data(), two.size()) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    std::set<std::string> nonces;
    for (int i = 0; i < 100; ++i) nonces.insert(remote::new_nonce());
    CHECK(nonces.size() == 100);
    CHECK(remote::is_nonce(*nonces.begin()));
    CHECK(ipcbench::platform::equal_in_constant_time("abc", "abc"));
    CHECK_FALSE(ipcbench::platform::equal_in_constant_time("abc", "abd"));
    CHECK_FALSE(ipcbench::platform::equal_in_constant_time("abc", "abcd"));
    // Each proof covers its role, both nonces and the request.
    const remote::handshake_transcript t{std::string(64, 'a'), std::string(64, 'b'), "worker",
                                         false, "127.0.0.1:7451"};
    const std::string agent_proof = remote::handshake_proof(secret, remote::proof_role::agent, t);
    const auto keys = remote::derive_session_keys(secret, t);
    CHECK(agent_proof != remote::handshake_proof(secret, remote::proof_role::client, t));
    CHECK(agent_proof != remote::handshake_proof("another", remote::proof_role::agent, t));
    CHECK(keys.to_agent.size() == 32);
    CHECK(keys.to_client.size() == 32);
    CHECK(keys.to_agent != keys.to_client);
    // Every part of the transcript changes the proofs and the session keys: a recorded
    // challenge replays to no other client, nonce, request or address.
    std::vector<remote::handshake_transcript> others(5, t);
    others[0].client_nonce = std::string(64, 'c');
    others[1].agent_nonce = std::string(64, 'c');
    others[2].session = "roll_call";
    others[3].done = true;
    others[4].dialled = "127.0.0.2:7451";
    for (const auto &o : others) {
        INFO(o.client_nonce << " " << o.agent_nonce << " " << o.session << " " << o.dialled);
        CHECK(agent_proof != remote::handshake_proof(secret, remote::proof_role::agent, o));
        CHECK(remote::handshake_proof(secret, remote::proof_role::client, t) !=
              remote::handshake_proof(secret, remote::proof_role::client, o));
        CHECK(keys.to_agent != remote::derive_session_keys(secret, o).to_agent);
        CHECK(keys.to_client != remote::derive_session_keys(secret, o).to_client);
    }
}

TEST_CASE("a --peer client gives an impostor agent nothing made with its token", "[remote]") {
    impostor fake;
    const auto run = run_ipchost({"--peer", fake.address(), "--token", secret, "--plugin",
                                  "socket.tcp", "--size", "1K", "--mode", "throughput",
                                  "--duration", "0.1", "--format", "json"});
    INFO(run.out << run.err);
    CHECK(run.exit_code != 0);
    CHECK_THAT(run.out + run.err, Catch::Contains("the agent at " + fake.address() +
                                                  " could not prove it holds this token"));
    check_learned_nothing(fake.frames());
}

TEST_CASE("a fleet's roll call gives impostor agents nothing made with its token", "[remote]") {
    impostor one, two;
    const auto run = run_ipchost({"fleet", "--agent", one.address(), "--agent", two.address(),
                                  "--token", secret, "--plugin", "socket.tcp", "--size", "1K",
                                  "--mode", "throughput", "--duration", "0.1", "--format", "json"});
    INFO(run.out << run.err);
    CHECK_THAT(run.out + run.err, Catch::Contains("could not prove it holds this token"));
    check_learned_nothing(one.frames());
    check_learned_nothing(two.frames());
}

TEST_CASE("an agent's peer client gives an impostor agent nothing made with the token",
          "[remote]") {
    agent a({"--token", secret, "--allow-peer", "127.0.0.0/8"});
    impostor fake;
    const auto run =
        run_ipchost({"--from", a.address(), "--peer", fake.address(), "--token", secret, "--plugin",
                     "socket.tcp", "--size", "1K", "--mode", "throughput", "--duration", "0.1",
                     "--warmup", "0", "--format", "json"});
    INFO(run.out << run.err);
    const json r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "failed");
    CHECK_THAT(
        r.at("error").get<std::string>(),
        Catch::Contains("the agent at " + fake.address() + " could not prove it holds this token"));
    check_learned_nothing(fake.frames());
}

TEST_CASE("without the token a stranger gets a challenge and nothing that opens a session",
          "[remote]") {
    agent a({"--token", secret});
    // A real client's handshake, recorded by the attacker: hello and auth.
    const std::string nonce = remote::new_nonce();
    const int real = a.connect_raw();
    REQUIRE(real >= 0);
    const std::string hello =
        frame(client_hello(nonce, {{"done", true}, {"dialled", a.address()}}));
    REQUIRE(write(real, hello.data(), hello.size()) == static_cast<ssize_t>(hello.size()));
    const json challenge = read_frame(real);
    REQUIRE(challenge.value("type", "") == "challenge");
    // The agent proved itself to the client: its proof is the one the token gives.
    remote::handshake_transcript t{nonce, challenge.at("nonce"), "worker", true, a.address()};
    CHECK(challenge.at("proof") == remote::handshake_proof(secret, remote::proof_role::agent, t));
    CHECK(challenge.dump().find(secret) == std::string::npos);
    const std::string auth =
        frame({{"type", "auth"},
               {"proof", remote::handshake_proof(secret, remote::proof_role::client, t)}});
    REQUIRE(write(real, auth.data(), auth.size()) == static_cast<ssize_t>(auth.size()));
    const auto keys = remote::derive_session_keys(secret, t);
    ipcbench::test::seal_fd(real, keys.to_agent, keys.to_client);
    CHECK(read_frame(real).value("type", "") == "goodbye");
    ipcbench::test::forget_fd(real);
    close(real);
    // The attacker replays both frames: a fresh agent nonce makes the old proof worthless.
    const int replay = a.connect_raw();
    REQUIRE(write(replay, hello.data(), hello.size()) == static_cast<ssize_t>(hello.size()));
    const json second = read_frame(replay);
    CHECK(second.at("nonce") != challenge.at("nonce"));
    REQUIRE(write(replay, auth.data(), auth.size()) == static_cast<ssize_t>(auth.size()));
    CHECK(read_frame(replay).value("message", "") == "wrong token");
    close(replay);
    // Nor does the agent's own proof, sent back as the client's.
    const int reflect = a.connect_raw();
    const std::string hello2 = frame(client_hello(remote::new_nonce(), {{"dialled", a.address()}}));
    REQUIRE(write(reflect, hello2.data(), hello2.size()) == static_cast<ssize_t>(hello2.size()));
    const json third = read_frame(reflect);
    const std::string mirror = frame({{"type", "auth"}, {"proof", third.at("proof")}});
    REQUIRE(write(reflect, mirror.data(), mirror.size()) == static_cast<ssize_t>(mirror.size()));
    CHECK(read_frame(reflect).value("message", "") == "wrong token");
    close(reflect);
    CHECK(ipcbench::test::children_of(a.pid()).empty());  // no session was started
}

TEST_CASE("an old client's hello is refused naming both versions, and tokens meet --insecure",
          "[remote]") {
    agent a({"--token", secret});
    // Protocol 1 sent the token in clear in its hello.
    const json old = ipcbench::test::answer(
        a.exchange(frame({{"type", "hello"}, {"protocol", 1}, {"token", "whatever"}})));
    CHECK_THAT(old.value("message", ""),
               Catch::Contains("agent protocol version 1") && Catch::Contains("speaks version 3"));
    // Protocol 2 had the proofs but no sealed session: refused by name as well.
    const json two = ipcbench::test::answer(a.exchange(
        frame(client_hello(remote::new_nonce(), {{"protocol", 2}, {"dialled", a.address()}}))));
    CHECK_THAT(two.value("message", ""), Catch::Contains("agent protocol version 2") &&
                                             Catch::Contains("speaks version 3") &&
                                             Catch::Contains("bound to its handshake"));
    // A client without a token is told the agent needs one; an insecure agent cannot prove
    // itself, so a client holding a token refuses it.
    const auto none = run_ipchost({"--peer", a.address(), "--plugin", "socket.tcp", "--size", "1K",
                                   "--duration", "0.1", "--format", "json"});
    CHECK_THAT(none.out + none.err,
               Catch::Contains("the agent at " + a.address() + " requires a token"));
    agent open({"--insecure"});
    const auto holding =
        run_ipchost({"--peer", open.address(), "--token", secret, "--plugin", "socket.tcp",
                     "--size", "1K", "--duration", "0.1", "--format", "json"});
    CHECK_THAT(holding.out + holding.err,
               Catch::Contains("runs without a token (ipchost serve --insecure)"));
    const auto without = run_ipchost({"--peer", open.address(), "--plugin", "socket.tcp", "--size",
                                      "1K", "--duration", "0.1", "--format", "json"});
    INFO(without.err);
    CHECK(without.exit_code == 0);
    CHECK(json::parse(without.out).at("results").at(0).at("status") == "ok");
}
