// Sessions nobody can hold (issue 39, items 5 to 7): only whole frames count as a client's
// activity, one client address gets only its share of the sessions, a "busy" answer names no
// other client, ending sessions never stalls the agent's loop, and SIGTERM ends an agent whose
// every session is busy within a second. Loopback only: 127.0.0.2 stands for another host.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::worker_session;
using nlohmann::json;

namespace {

using deadline_clock = std::chrono::steady_clock;

using ipcbench::test::seconds_since;

// A session whose worker is stuck for 30 s in a plugin call (a creator's connect waiting for a
// peer that never comes): it reads nothing from its control channel, so only the agent's own
// deadline ends it.
std::unique_ptr<worker_session> stuck_session(const agent &a, const std::string &source = "") {
    auto s = std::make_unique<worker_session>(a, "s3cret-4f1c9e7a2b8d6053", source);
    json setup = ipcbench::test::setup_frame("", "socket.tcp", "creator", "127.0.0.1:0");
    const json opened = s->request(setup);
    REQUIRE(opened.value("type", "") == "opened");
    const std::string connect =
        ipcbench::test::frame_on(s->fd, {{"type", "connect"}, {"timeout_ns", 30'000'000'000LL}});
    REQUIRE(send(s->fd, connect.data(), connect.size(), MSG_NOSIGNAL) > 0);
    return s;
}

}  // namespace

TEST_CASE("a client trickling a frame it never finishes is ended at its idle deadline",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--idle-timeout", "1"});
    worker_session s(a, "s3cret-4f1c9e7a2b8d6053");
    // A frame header announcing 200 bytes, then one byte every 0.2 s: bytes, never a frame.
    const std::string header("\0\0\0\xc8", 4);
    REQUIRE(send(s.fd, header.data(), header.size(), MSG_NOSIGNAL) == 4);
    const auto start = deadline_clock::now();
    json said;
    for (int i = 0; i < 30 && said.is_null(); ++i) {  // 6 s at most
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (send(s.fd, "{", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) break;  // closed: ended
        timeval none{0, 1000};
        setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
        char peek = 0;
        if (recv(s.fd, &peek, 1, MSG_PEEK) == 1) {
            timeval some{5, 0};
            setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &some, sizeof some);
            said = read_frame(s.fd);
        }
    }
    INFO(said.dump());
    CHECK_THAT(said.value("message", ""), Catch::Contains("idle for 1 s"));
    CHECK(seconds_since(start) < 4);  // a trickle of 20 bytes did not hold it past its deadline
}

TEST_CASE(
    "one client gets its share of the sessions, however many loopback addresses it uses, "
    "and busy names nobody",
    "[remote]") {
    const std::string token = "s3cret-4f1c9e7a2b8d6053";
    agent a({"--token", token, "--max-sessions", "2"});  // one a client by default
    worker_session first(a, token, "127.0.0.1");
    const json again = a.authenticate(token, json::object(), "127.0.0.1");
    INFO(again.dump());
    CHECK_THAT(again.value("message", ""),
               Catch::Contains("busy") && Catch::Contains("--max-sessions-per-client"));
    // The busy answer says the agent is full, not whom it serves.
    CHECK(again.dump().find("127.0.0.1") == std::string::npos);
    // Another loopback address is the same host, so the same client: busy as well (one token
    // holder on 127.0.0.1 and 127.0.0.2 held every session before).
    const json alias = a.authenticate(token, json::object(), "127.0.0.2");
    INFO(alias.dump());
    CHECK_THAT(alias.value("message", ""),
               Catch::Contains("busy") && Catch::Contains("--max-sessions-per-client"));
    CHECK(children_of(a.pid()).size() == 1);  // one worker: first's
    // An agent whose cap is its whole room is full after two, from whichever addresses.
    agent b({"--token", token, "--max-sessions", "2", "--max-sessions-per-client", "2"});
    worker_session one(b, token, "127.0.0.1");
    worker_session two(b, token, "127.0.0.2");
    const json full = b.authenticate(token, json::object(), "127.0.0.3");
    CHECK_THAT(full.value("message", ""),
               Catch::Contains("busy: this agent serves 2 benchmark(s) at a time") &&
                   Catch::Contains("is full"));
    CHECK(full.dump().find("127.0.0.1") == std::string::npos);
    CHECK(full.dump().find("127.0.0.2") == std::string::npos);
    const auto bad = ipcbench::test::run_ipchost(
        {"serve", "--max-sessions", "2", "--max-sessions-per-client", "3", "--insecure"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--max-sessions-per-client"));
}

TEST_CASE("ending sixteen stuck sessions does not stall the agent for anyone else", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--max-sessions", "17",
             "--max-sessions-per-client", "16"});
    std::vector<std::unique_ptr<worker_session>> stuck;
    for (int i = 0; i < 16; ++i) stuck.push_back(stuck_session(a));
    REQUIRE(ipcbench::test::children_of(a.pid()).size() == 16);
    stuck.clear();  // sixteen clients gone at once: each worker must be ended, none answers
    // Another client's whole handshake meanwhile: the agent's loop is not waiting on workers
    // (one after the other, 400 ms each, it took 6.4 s).
    const auto start = deadline_clock::now();
    const json bye = a.authenticate("s3cret-4f1c9e7a2b8d6053", {{"done", true}}, "127.0.0.2");
    const double took = seconds_since(start);
    CHECK(bye.value("type", "") == "goodbye");
    CHECK(took < 2.0);
    // And every stuck worker was ended (killed past its time), none left.
    for (int i = 0; i < 100 && !ipcbench::test::children_of(a.pid()).empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(ipcbench::test::children_of(a.pid()).empty());
}

TEST_CASE("SIGTERM ends an agent with 64 stuck sessions within a second", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--max-sessions", "64",
             "--max-sessions-per-client", "64"});
    std::vector<std::unique_ptr<worker_session>> stuck;
    for (int i = 0; i < 64; ++i) stuck.push_back(stuck_session(a));
    const auto workers = ipcbench::test::children_of(a.pid());
    REQUIRE(workers.size() == 64);
    const double took = a.stop(10);
    INFO("the agent took " << took << " s");
    CHECK(took >= 0);
    CHECK(took < 1.0);
    // Its workers went with it.
    for (int pid : workers) CHECK(kill(pid, 0) != 0);
}
