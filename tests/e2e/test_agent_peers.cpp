// Agent to agent (`ipchost --from A --peer B`): the client side of a case runs on agent A, whose
// peer client becomes a --peer client of agent B; the results come back to the client that
// asked. Loopback only: 127.0.0.2 stands for another host.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "remote/agent_client.hpp"
#include "remote/agent_handshake.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::children_of;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::run_ipchost;
using ipcbench::test::send_hello_and_auth;
using nlohmann::json;

namespace {

std::vector<std::string> from_run(const std::string &from, const std::string &peer,
                                  const std::string &duration, const std::string &token) {
    return {"--from",     from,     "--peer",   peer,       "--token",    token,        "--plugin",
            "socket.tcp", "--size", "1K",       "--mode",   "throughput", "--duration", duration,
            "--warmup",   "0",      "--verify", "--format", "json"};
}

json peer_results_of(const ipcbench::test::process_output &run) {
    INFO(run.err);
    const json doc = json::parse(run.out);
    return doc.at("results");
}

// Polls (bounded) until the agent runs a child that has a child of its own: a peer client and
// the worker it started. Returns how deep the agent's tree was at most.
int deepest_tree(int agent_pid, double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    int deepest = 0;
    while (std::chrono::steady_clock::now() < end && deepest < 2) {
        for (int child : children_of(agent_pid))
            deepest = std::max(deepest, children_of(child).empty() ? 1 : 2);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return deepest;
}

// A listening TCP socket on a loopback address; its port by reference.
int listen_on(const std::string &host, int &port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    socklen_t len = sizeof a;
    REQUIRE(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    REQUIRE(listen(fd, 8) == 0);
    REQUIRE(getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    return fd;
}

bool connection_waiting(int listener) {
    pollfd p{listener, POLLIN, 0};
    return poll(&p, 1, 0) == 1;
}

// A socket.tcp case's settings as a peer_case carries them.
json case_settings() {
    return {{"transport", "socket.tcp"},
            {"mode", "throughput"},
            {"direction", "forward"},
            {"size_bytes", 1024},
            {"duration_s", 0.2},
            {"warmup_s", 0},
            {"count", 0},
            {"timeout_s", 0},
            {"streams", 1},
            {"io", "threads"},
            {"threads", 0},
            {"rate_per_s", 0},
            {"burst", 1},
            {"verify", false},
            {"batch", 1},
            {"zero_copy", "auto"},
            {"interval_s", 0},
            {"sender_cpu", -1},
            {"receiver_cpu", -1},
            {"sender_impl", "native"},
            {"receiver_impl", "native"},
            {"options", json::object()}};
}

// A peer client session on `a` (the handshake done, its welcome read); -1 if refused.
int peer_session(const agent &a) {
    const int fd = a.connect_raw();
    if (fd < 0) return -1;
    if (send_hello_and_auth(fd, "s3cret-4f1c9e7a2b8d6053", {{"session", "peer_client"}})
                .value("type", "") != "challenge" ||
        read_frame(fd).value("type", "") != "welcome") {
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

TEST_CASE(
    "a run with --from runs the client side on one agent against another and brings the results "
    "back",
    "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    REQUIRE(a.reachable());
    REQUIRE(b.reachable());
    std::optional<ipcbench::test::process_output> run;
    std::thread client([&] {
        run = run_ipchost(from_run(a.address(), b.address(), "1.5", "s3cret-4f1c9e7a2b8d6053"));
    });
    // While it runs, agent A holds a peer client with a worker of its own (the client side)
    // and agent B a worker (the server side).
    const int a_depth = deepest_tree(a.pid(), 10);
    const int b_depth = deepest_tree(b.pid(), 0.5);
    client.join();
    CHECK(a_depth == 2);
    CHECK(b_depth >= 1);
    INFO(run->err);
    REQUIRE(run->exit_code == 0);
    const json doc = json::parse(run->out);
    CHECK(doc.at("settings").at("from") == a.address());
    CHECK(doc.at("settings").at("peer") == b.address());
    const json r = doc.at("results").at(0);
    REQUIRE(r.at("status") == "ok");
    // Every message the client side on A sent arrived on B, checked byte by byte.
    const json &integrity = r.at("integrity");
    CHECK(integrity.at("messages_sent").get<std::uint64_t>() > 0);
    CHECK(integrity.at("messages_received") == integrity.at("messages_sent"));
    CHECK(integrity.at("lost") == 0);
    CHECK(integrity.at("corrupted") == 0);
    CHECK(r.at("settings").at("verify") == true);
    // Both sides ran on agents, each alone there: A says so for the sender, B for the receiver.
    CHECK(r.at("sender").at("agent_sessions") == 1);
    CHECK(r.at("receiver").at("agent_sessions") == 1);
    CHECK(r.at("sender").at("cpu_percent").get<double>() > 0);
}

TEST_CASE("a case between agents names the agent that failed it: a wrong token, none there",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        b({"--token", "other-7d2e9a4c1b6f8035", "--allow-peer", "127.0.0.0/8"});
    const json wrong = peer_results_of(
        run_ipchost(from_run(a.address(), b.address(), "0.2", "s3cret-4f1c9e7a2b8d6053")));
    CHECK(wrong.at(0).at("status") == "failed");
    const std::string not_proven = "the agent at " + b.address() +
                                   " could not prove it holds this token: its token is another";
    CHECK_THAT(wrong.at(0).at("error").get<std::string>(), Catch::StartsWith(not_proven));
    const json wrong_a = peer_results_of(
        run_ipchost(from_run(b.address(), a.address(), "0.2", "s3cret-4f1c9e7a2b8d6053")));
    CHECK_THAT(wrong_a.at(0).at("error").get<std::string>(), Catch::StartsWith(not_proven));
    // Nothing at a port, and a service there that is no agent, read the same: agent A is no
    // port scanner for whoever holds its token.
    int port = 0;
    const int closed = listen_on("127.0.0.1", port);
    close(closed);
    const std::string nothing = "127.0.0.1:" + std::to_string(port);
    int not_agent_port = 0;
    const int not_agent = listen_on("127.0.0.1", not_agent_port);
    std::thread garbage([&] {
        const int c = accept(not_agent, nullptr, nullptr);
        if (c >= 0) {
            const char junk[] = "\x00\x00\x00\x05hello";
            (void)!write(c, junk, sizeof junk - 1);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            close(c);
        }
    });
    const json none = peer_results_of(
        run_ipchost(from_run(a.address(), nothing, "0.2", "s3cret-4f1c9e7a2b8d6053")));
    const json other = peer_results_of(
        run_ipchost(from_run(a.address(), "127.0.0.1:" + std::to_string(not_agent_port), "0.2",
                             "s3cret-4f1c9e7a2b8d6053")));
    garbage.join();
    close(not_agent);
    const std::string unreached =
        " (unreachable, refused, silent or not an agent; the agent's log says which)";
    CHECK(none.at(0).at("error") == "no ipchost agent answered at " + nothing + unreached);
    CHECK(other.at(0).at("error") ==
          "no ipchost agent answered at 127.0.0.1:" + std::to_string(not_agent_port) + unreached);
    // No agent A at all: the client side's agent is named.
    const std::string gone = "127.0.0.1:" + std::to_string(port);
    const json no_a =
        peer_results_of(run_ipchost(from_run(gone, b.address(), "0.2", "s3cret-4f1c9e7a2b8d6053")));
    CHECK_THAT(no_a.at(0).at("error").get<std::string>(),
               Catch::StartsWith("cannot connect to the agent at " + gone));
}

TEST_CASE("a peer case reaches only allowed agents, and fails alike whatever is at the port",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--max-sessions",
             "3", "--max-sessions-per-client", "3"});
    // Three things that are no agent: a closed port, a service that answers junk, and one that
    // takes the connection and says nothing (as a filtered port would, but on loopback).
    int closed_port = 0, junk_port = 0, silent_port = 0;
    close(listen_on("127.0.0.1", closed_port));
    const int junk = listen_on("127.0.0.1", junk_port);
    const int silent = listen_on("127.0.0.1", silent_port);
    std::thread junk_service([&] {
        pollfd p{junk, POLLIN, 0};
        if (poll(&p, 1, 10000) != 1) return;
        const int c = accept(junk, nullptr, nullptr);
        if (c < 0) return;
        (void)!write(c, "SSH-2.0-OpenSSH_9.2\r\n", 21);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        close(c);
    });
    // Asked of agent A directly, each on a session of its own at once: the time from the
    // peer_case to A's answer is A's and nothing else's.
    struct attempt {
        int port;
        std::string answer;
        double seconds = 0;
    };
    std::vector<attempt> attempts{{closed_port, "", 0}, {junk_port, "", 0}, {silent_port, "", 0}};
    std::vector<std::thread> runs;
    for (auto &at : attempts)
        runs.emplace_back([&a, &at] {
            const int fd = peer_session(a);
            if (fd < 0) return;
            timeval tv{20, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            const json request = {{"type", "peer_case"},
                                  {"agent", "127.0.0.1:" + std::to_string(at.port)},
                                  {"data_port_first", 0},
                                  {"data_port_last", 0},
                                  {"settings", case_settings()}};
            const std::string bytes = ipcbench::test::frame_on(fd, request);
            const auto start = std::chrono::steady_clock::now();
            (void)!write(fd, bytes.data(), bytes.size());
            at.answer = read_frame(fd).dump();
            at.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            close(fd);
        });
    for (auto &r : runs) r.join();
    junk_service.join();
    close(junk);
    close(silent);
    for (const auto &at : attempts) {
        INFO(at.port << ": " << at.answer << " after " << at.seconds << " s");
        CHECK_THAT(at.answer, Catch::Contains("no ipchost agent answered at 127.0.0.1:" +
                                              std::to_string(at.port) +
                                              " (unreachable, refused, silent or not an agent"));
        // Each answered when the one bound passed (3 s), not when its cause showed.
        CHECK(at.seconds >= ipcbench::remote::hidden_failure_s);
        CHECK(at.seconds < ipcbench::remote::hidden_failure_s + 2);
    }
    // Outside the operator's list, or where no agent can be: refused by name, nothing connects.
    agent narrow({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.9"});
    int trap_port = 0;
    const int trap = listen_on("127.0.0.1", trap_port);
    const json outside = peer_results_of(
        run_ipchost(from_run(narrow.address(), "127.0.0.1:" + std::to_string(trap_port), "0.2",
                             "s3cret-4f1c9e7a2b8d6053")));
    CHECK_THAT(outside.at(0).value("error", ""),
               Catch::Contains("runs cases only against the agents its operator allows") &&
                   Catch::Contains("127.0.0.1 is not among them"));
    // What reached the trap is the client's own goodbye ("done"), never the agent's peer client.
    while (connection_waiting(trap)) {
        const int c = accept(trap, nullptr, nullptr);
        timeval tv{5, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        const json hello = read_frame(c);
        INFO(hello.dump());
        CHECK(hello.value("done", false));
        close(c);
    }
    close(trap);
    for (const char *where : {"0.0.0.0:7451", "224.0.0.1:7451", "169.254.169.254:80"}) {
        const json r = peer_results_of(
            run_ipchost(from_run(a.address(), where, "0.2", "s3cret-4f1c9e7a2b8d6053")));
        INFO(where);
        CHECK_THAT(r.at(0).value("error", ""), Catch::Contains("no agent is there; refused"));
    }
}

TEST_CASE("an agent's peer client connects only where the other agent opened on its own address",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    // A hostile "agent": it passes the handshake and, as its worker, says its creator opened an
    // address on another host (127.0.0.2), where a service waits for agent A's connection.
    int trap_port = 0, fake_port = 0;
    const int trap = listen_on("127.0.0.2", trap_port);
    const int fake = listen_on("127.0.0.1", fake_port);
    std::atomic<bool> saw_setup{false};
    std::thread hostile([&] {
        const int c = accept(fake, nullptr, nullptr);
        if (c < 0) return;
        timeval tv{5, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        const json hello = read_frame(c);
        auto say = [&](const json &m) {
            const std::string f = ipcbench::test::frame_on(c, m);
            (void)!write(c, f.data(), f.size());
        };
        if (hello.value("type", "") == "hello") {
            // It holds the token (an agent of the fleet gone hostile): its proof is good.
            ipcbench::test::answer_as_agent(c, hello, "s3cret-4f1c9e7a2b8d6053");
            say({{"type", "welcome"}, {"agent", "ipchost 1.2.0"}});
            say({{"type", "hello"}, {"versions", {"1.0"}}, {"pid", 4242}});
            read_frame(c);  // the welcome to "its worker"
            const json setup = read_frame(c);
            saw_setup = setup.value("type", "") == "setup";
            say({{"type", "opened"}, {"addresses", {"127.0.0.2:" + std::to_string(trap_port)}}});
            while (!read_frame(c).is_null()) {
            }
        }
        ipcbench::test::forget_fd(c);
        close(c);
    });
    const json r = peer_results_of(run_ipchost(from_run(
        a.address(), "127.0.0.1:" + std::to_string(fake_port), "0.2", "s3cret-4f1c9e7a2b8d6053")));
    hostile.join();
    CHECK(saw_setup);
    CHECK(r.at(0).at("status") == "failed");
    CHECK_THAT(
        r.at(0).at("error").get<std::string>(),
        Catch::Contains("opened '127.0.0.2:" + std::to_string(trap_port) + "', on another host"));
    CHECK_FALSE(connection_waiting(trap));  // nothing connected there
    close(trap);
    close(fake);
}

TEST_CASE("a peer client session takes only peer_case, checked before it runs", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    auto session = [&](const json &hello_extra) {
        const int fd = a.connect_raw();
        REQUIRE(send_hello_and_auth(fd, "s3cret-4f1c9e7a2b8d6053", hello_extra).value("type", "") ==
                "challenge");
        return fd;
    };
    auto ask = [&](int fd, const json &m) {
        const std::string f = ipcbench::test::frame_on(fd, m);
        (void)!write(fd, f.data(), f.size());
        return read_frame(fd);
    };
    const json settings = case_settings();
    auto peer_case = [&](const json &changes, const json &setting_changes) {
        json s = settings;
        if (setting_changes.is_object()) s.update(setting_changes);
        json m = {{"type", "peer_case"},
                  {"agent", "127.0.0.1:1"},
                  {"data_port_first", 0},
                  {"data_port_last", 0},
                  {"settings", s}};
        if (changes.is_object()) m.update(changes);
        return m;
    };
    struct refusal {
        json message, settings;
        std::string text;
    };
    const std::vector<refusal> refusals = {
        {{{"agent", "localhost:7451"}}, {}, "numeric network addresses"},
        {{{"data_port_first", 5000}}, {}, "must be a range"},
        {{}, {{"sender_impl", "go"}}, "only its own native worker, not the kit 'go'"},
        {{}, {{"options", {{"bind", "10.0.0.1"}}}}, "option 'bind' of socket.tcp is not taken"},
        {{}, {{"size_bytes", 1 << 30}, {"batch", 64}}, "memory-budget"},
        {{{"token", "s3cret-4f1c9e7a2b8d6053"}}, {}, "'token' is not taken from a client"},
    };
    for (const auto &r : refusals) {
        const int fd = session({{"session", "peer_client"}});
        REQUIRE(read_frame(fd).at("type") == "welcome");
        const json reply = ask(fd, peer_case(r.message, r.settings));
        INFO(r.text);
        CHECK(reply.value("type", "") == "error");
        CHECK_THAT(reply.value("message", ""), Catch::Contains(r.text));
        close(fd);
    }
    // A worker's messages are not a peer client's, and a worker session takes no peer_case.
    const int peer = session({{"session", "peer_client"}});
    REQUIRE(read_frame(peer).at("type") == "welcome");
    CHECK_THAT(ask(peer, {{"type", "setup"}}).value("message", ""),
               Catch::Contains("a peer client session takes only peer_case"));
    close(peer);
    const int worker = session({});
    REQUIRE(read_frame(worker).at("type") == "welcome");
    REQUIRE(read_frame(worker).at("type") == "hello");  // its worker's
    CHECK_THAT(ask(worker, peer_case({}, {})).value("message", ""),
               Catch::Contains("an agent takes only welcome, setup"));
    close(worker);
    CHECK_THAT(
        a.authenticate("s3cret-4f1c9e7a2b8d6053", {{"session", "fleet"}}).value("message", ""),
        Catch::Contains("'session' must be \"worker\", \"peer_client\" or \"roll_call\""));
}

TEST_CASE("an agent started with --no-peer-runs refuses peer client sessions by name", "[remote]") {
    agent a(
        {"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--no-peer-runs"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    const json r = peer_results_of(
        run_ipchost(from_run(a.address(), b.address(), "0.2", "s3cret-4f1c9e7a2b8d6053")));
    CHECK_THAT(r.at(0).at("error").get<std::string>(),
               Catch::Contains("refused: this agent runs no cases against other agents") &&
                   Catch::Contains("--no-peer-runs"));
    // Its ordinary sessions are as before.
    const auto plain =
        run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                     "socket.tcp", "--size", "1K", "--mode", "throughput", "--duration", "0.2",
                     "--warmup", "0", "--format", "json"});
    CHECK(peer_results_of(plain).at(0).at("status") == "ok");
    const auto lone = run_ipchost({"--from", a.address(), "--plugin", "socket.tcp"});
    CHECK(lone.exit_code == 2);
    CHECK_THAT(lone.err, Catch::Contains("--peer must name the one that runs the server side"));
}
