// `ipchost serve --max-sessions N`: several clients at once, each with its own worker, none
// disturbing another, and every result saying how many sessions ran beside it. Loopback only.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "platform/stream_socket.hpp"
#include "remote/agent_client.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::answer;
using ipcbench::test::children_of;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::run_ipchost;
using ipcbench::test::worker_session;
using nlohmann::json;

namespace {

std::vector<std::string> peer_run(const agent &a, const std::string &duration) {
    return {"--peer",   a.address(),  "--token",    "s3cret-4f1c9e7a2b8d6053",
            "--plugin", "socket.tcp", "--size",     "1K",
            "--mode",   "throughput", "--duration", duration,
            "--warmup", "0",          "--format",   "json"};
}

// The one result of a one-case run, or why there is none.
json only_result(const ipcbench::test::process_output &run) {
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json doc = json::parse(run.out);
    REQUIRE(doc.at("results").size() == 1);
    return doc.at("results").at(0);
}

// Waits (bounded) until the agent has no child left: every session's worker reaped.
bool workers_gone(pid_t agent_pid, double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
        if (children_of(agent_pid).empty()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

}  // namespace

TEST_CASE("an agent with --max-sessions 3 runs three sessions at once and tells a fourth busy",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--max-sessions", "3",
             "--max-sessions-per-client", "3"});
    REQUIRE(a.reachable());
    std::optional<worker_session> first, second;
    first.emplace(a, "s3cret-4f1c9e7a2b8d6053");
    second.emplace(a, "s3cret-4f1c9e7a2b8d6053");
    CHECK(children_of(a.pid()).size() == 2);  // a worker of its own for each session

    // Measured while two other sessions were running: its agent says 3, this one included.
    const json beside = only_result(run_ipchost(peer_run(a, "0.3")));
    CHECK(beside.at("status") == "ok");
    CHECK(beside.at("integrity").at("messages_received").get<long>() > 0);
    CHECK(beside.at("receiver").at("agent_sessions") == 3);
    CHECK(beside.at("sender").at("agent_sessions") == 0);  // the side on this host

    {
        worker_session third(a, "s3cret-4f1c9e7a2b8d6053");
        const json busy = a.authenticate("s3cret-4f1c9e7a2b8d6053");
        const std::string text = busy.at("message").get<std::string>();
        // The agent is full (--max-sessions), not this client's share of it, which is as large.
        CHECK_THAT(text, Catch::Contains("busy") && Catch::Contains("3 benchmark(s) at a time") &&
                             Catch::Contains("(ipchost serve --max-sessions) and is full"));
    }
    first.reset();
    // Two places free again: a run now is measured beside the one session left.
    const json after = only_result(run_ipchost(peer_run(a, "0.3")));
    CHECK(after.at("status") == "ok");
    CHECK(after.at("receiver").at("agent_sessions") == 2);
    second.reset();
    const json alone = only_result(run_ipchost(peer_run(a, "0.2")));
    CHECK(alone.at("receiver").at("agent_sessions") == 1);
    CHECK(workers_gone(a.pid(), 10));
}

TEST_CASE("a session killed or hostile beside another leaves its measurement whole", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--max-sessions", "3",
             "--max-sessions-per-client", "3"});
    REQUIRE(a.reachable());
    ipcbench::test::process_output measured;
    std::thread steady([&] { measured = run_ipchost(peer_run(a, "2.5"), {}, 60); });
    // Beside it: a client SIGKILLed in the middle of its case, and one that sends a frame no
    // agent takes.
    double exit_s = 0;
    auto killed_args = peer_run(a, "5");
    killed_args.insert(killed_args.begin(), IPCHOST_PATH);
    const auto killed = ipcbench::test::run_process_signalled(killed_args, 1.0, SIGKILL, &exit_s);
    CHECK(killed.signal == SIGKILL);
    std::string hostile_error;
    {
        worker_session hostile(a, "s3cret-4f1c9e7a2b8d6053");
        const json refused = hostile.request({{"type", "probe"}});
        if (refused.is_object()) hostile_error = refused.value("message", "");
    }
    steady.join();
    CHECK_THAT(hostile_error, Catch::Contains("an agent takes only"));
    const json r = only_result(measured);
    CHECK(r.at("status") == "ok");
    const auto &integrity = r.at("integrity");
    CHECK(integrity.at("messages_received").get<long>() > 0);
    CHECK(integrity.at("messages_received") == integrity.at("messages_sent"));
    CHECK(integrity.at("lost") == 0);
    CHECK(r.at("duration_s").get<double>() > 2.0);
    // The killed client's worker ended with its session; none is left behind.
    CHECK(workers_gone(a.pid(), 10));
    // And the agent still serves.
    CHECK(only_result(run_ipchost(peer_run(a, "0.2"))).at("status") == "ok");
}

TEST_CASE("the agent takes --max-sessions 1 to 64, and only with serve", "[remote][cli]") {
    auto zero = run_ipchost({"serve", "--max-sessions", "0", "--insecure"});
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.err, Catch::Contains("--max-sessions"));
    auto many = run_ipchost({"serve", "--max-sessions", "65", "--insecure"});
    CHECK(many.exit_code == 2);
    CHECK_THAT(many.err, Catch::Contains("--max-sessions"));
    auto run = run_ipchost({"--max-sessions", "2", "--plugin", "pipe.fifo"});
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("--max-sessions") && Catch::Contains("serve"));
}

TEST_CASE("a session its client finished has ended at the agent when the client goes on",
          "[remote]") {
    // One session at a time (the default): a run's next case, or a fleet's next round with this
    // agent on the other side, connects right after the last one ended. The session must no
    // longer count by then, or that client is told "busy" by its own finished session.
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    REQUIRE(a.reachable());
    const ipcbench::remote::agent_address where{ipcbench::remote::parse_host_port(a.address(), 0),
                                                "s3cret-4f1c9e7a2b8d6053"};
    for (int i = 0; i < 20; ++i) {
        const auto link = ipcbench::remote::connect_agent(where, 10);
        const bool ended = ipcbench::remote::finish_session(link.fd, 10'000);
        ipcbench::platform::close_socket(link.fd);
        REQUIRE(ended);
        const auto who = ipcbench::remote::roll_call(where, 10);
        INFO("session " << i);
        REQUIRE(who.sessions == 0);  // what the agent counts when the next client comes
        REQUIRE(who.max_sessions == 1);
    }
    CHECK(workers_gone(a.pid(), 10));
}

TEST_CASE("finishing a session waits for the agent's end of it, within its bound", "[remote]") {
    namespace platform = ipcbench::platform;
    // A peer that keeps its end open: the client waits its bound, then says the session may
    // still run. A peer that closes once the client ends: the wait is over at once, and what
    // the peer still sent is read and dropped.
    const auto listener = platform::listen_tcp("127.0.0.1", 0);
    const int port = platform::local_address(listener).port;
    const auto silent = platform::connect_tcp("127.0.0.1", port, 5);
    const auto silent_peer = platform::accept_connection(listener);
    const auto started = std::chrono::steady_clock::now();
    CHECK_FALSE(ipcbench::remote::finish_session(silent, 300));
    const auto waited = std::chrono::steady_clock::now() - started;
    CHECK(waited >= std::chrono::milliseconds(300));
    CHECK(waited < std::chrono::seconds(5));
    // The peer saw the client's end of stream while it waited (a bounded look: no end of
    // stream is a failure, not a hang).
    char byte = 0;
    REQUIRE(platform::wait_readable({silent_peer}, 5000).any());
    CHECK(platform::receive_some(silent_peer, &byte, 1, false).status ==
          platform::io_status::closed);
    const auto closing = platform::connect_tcp("127.0.0.1", port, 5);
    const auto closing_peer = platform::accept_connection(listener);
    const std::string last_words(100'000, 'x');  // more than one read of the client's
    REQUIRE(platform::send_all(closing_peer, last_words.data(), last_words.size(), 5000));
    std::thread peer([&] {
        platform::wait_readable({closing_peer}, 10'000);  // the client's end of stream
        platform::close_socket(closing_peer);
    });
    CHECK(ipcbench::remote::finish_session(closing, 10'000));
    peer.join();
    for (const auto fd : {silent, silent_peer, closing, listener}) platform::close_socket(fd);
}
