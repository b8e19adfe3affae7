// What a token holder (or anyone who reaches the port) tries against `ipchost serve`, each
// refused by the agent: a pipelined flood that used to freeze it, options and addresses that
// aimed it at ports and hosts of its own choosing, a connection flood before authentication,
// oversized and deeply nested hellos, and jobs larger than its memory budget. Loopback only:
// 127.0.0.2 stands for another host (Linux answers on all of 127.0.0.0/8).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "model/job.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::answer;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::send_hello_and_auth;
using ipcbench::test::worker_session;
using nlohmann::json;

namespace {

using clock_type = std::chrono::steady_clock;

using ipcbench::test::seconds_since;

// Peak resident memory of a process, from /proc (KiB); -1 when unknown.
long peak_rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

// A client that finishes its run: hello with done=true, answered "goodbye" (no worker).
bool says_goodbye(const agent &a, const std::string &source, int delay_ms) {
    const int fd = a.connect_raw(source);
    if (fd < 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    const json challenge = send_hello_and_auth(fd, "s3cret-4f1c9e7a2b8d6053", {{"done", true}});
    const json reply = challenge.value("type", "") == "challenge" ? read_frame(fd) : json();
    close(fd);
    return reply.is_object() && reply.value("type", "") == "goodbye";
}

// Sends `bytes` from a thread (the agent may close long before the last byte) and returns what
// the agent answered until it closed.
std::string exchange_while_sending(const agent &a, const std::string &bytes) {
    const int fd = a.connect_raw();
    REQUIRE(fd >= 0);
    std::thread writer([&] { send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL); });
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;)
        reply.append(buf, static_cast<std::size_t>(n));
    shutdown(fd, SHUT_RDWR);
    writer.join();
    close(fd);
    return reply;
}

json creator_setup(const std::string &address, const json &options = json::object()) {
    json setup = ipcbench::test::setup_frame("", "socket.tcp", "creator", address);
    setup["options"] = options;
    return setup;
}

}  // namespace

// Floods `s` with `count` copies of `message` from a thread, reading nothing; returns the
// first error frame the agent sent on that connection (null if none came).
json flood_until_cut(const worker_session &s, const json &message, int count) {
    std::string burst;
    for (int i = 0; i < count; ++i) burst += ipcbench::test::frame_on(s.fd, message);  // sealed
    // The agent stops reading once it cuts the session: the rest of the write fails, as it
    // should.
    std::thread writer([&] { send(s.fd, burst.data(), burst.size(), MSG_NOSIGNAL); });
    json said;
    for (int i = 0; i < 20 && !(said.is_object() && said.value("type", "") == "error"); ++i) {
        said = read_frame(s.fd);
        if (said.is_null()) break;
    }
    shutdown(s.fd, SHUT_RDWR);
    writer.join();
    return said;
}

TEST_CASE("a pipelined flood that does not read is cut, and the agent serves and stops on time",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    {
        // 20,000 sealed frames of 50 bytes ({"type":"run"}) in one write, no answer read: cut at
        // the first, which is no job; meanwhile others are served at once.
        worker_session flood(a, "s3cret-4f1c9e7a2b8d6053");
        REQUIRE(frame({{"type", "run"}}).size() == 18);
        const auto start = clock_type::now();
        bool served = false;  // Catch's checks stay on the test's own thread
        std::thread other([&] { served = says_goodbye(a, "", 100); });
        const json said = flood_until_cut(flood, {{"type", "run"}}, 20000);
        other.join();
        CHECK(served);
        INFO(said.dump());
        REQUIRE(said.is_object());
        CHECK_THAT(said.at("message").get<std::string>(),
                   Catch::Contains("run message field 'job' is missing"));
        CHECK(seconds_since(start) < 10);
    }
    {
        // Requests the worker does answer, pipelined without reading: cut past four.
        worker_session flood(a, "s3cret-4f1c9e7a2b8d6053");
        const json said =
            flood_until_cut(flood, {{"type", "connect"}, {"timeout_ns", 1000}}, 20000);
        INFO(said.dump());
        REQUIRE(said.is_object());
        CHECK_THAT(said.at("message").get<std::string>(),
                   Catch::Contains("more than 4 requests without reading the answers"));
    }
    CHECK(says_goodbye(a, "", 0));
    // A client that keeps writing and reads nothing while SIGTERM comes: the agent still ends
    // within a second.
    worker_session busy(a, "s3cret-4f1c9e7a2b8d6053");
    std::string burst;
    for (int i = 0; i < 20000; ++i)
        burst += ipcbench::test::frame_on(busy.fd, {{"type", "sender_done"}});
    send(busy.fd, burst.data(), burst.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    const double took = a.stop(5);
    CHECK(took >= 0);
    CHECK(took < 1.0);
}

TEST_CASE("creators listen only where the agent says, options that name addresses are refused",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    worker_session s(a, "s3cret-4f1c9e7a2b8d6053");
    // The option that made a root agent listen on port 80 of every interface.
    json bind = s.request(creator_setup("127.0.0.1:0", {{"bind", "0.0.0.0:80"}}));
    INFO(bind.dump());
    REQUIRE(bind.at("type") == "error");
    CHECK_THAT(bind.at("message").get<std::string>(),
               Catch::Contains("option 'bind' of socket.tcp is not taken from a client") &&
                   Catch::Contains("nodelay, rcvbuf, sndbuf, zerocopy"));
    // The session ended with that: every rule below gets its own client, one rule broken each.
    auto refused = [&](const json &setup) {
        worker_session one(a, "s3cret-4f1c9e7a2b8d6053");
        const json reply = one.request(setup);
        INFO(reply.dump());
        REQUIRE(reply.at("type") == "error");
        return reply.at("message").get<std::string>();
    };
    CHECK_THAT(refused(creator_setup("0.0.0.0:0")),
               Catch::Contains("listens only on the address the client reached this agent by "
                               "(127.0.0.1)"));
    CHECK_THAT(refused(creator_setup("127.0.0.2:0")), Catch::Contains("(127.0.0.1)"));
    CHECK_THAT(refused(creator_setup("127.0.0.1:80")),
               Catch::Contains("port 80 refused") && Catch::Contains("1024-65535"));
    CHECK_THAT(refused(creator_setup("127.0.0.1:1023")), Catch::Contains("port 1023 refused"));
    // What a well-behaved client asks for is still served: the reached address, any free port
    // or an unprivileged one, and a buffer option.
    worker_session good(a, "s3cret-4f1c9e7a2b8d6053");
    const int port = ipcbench::test::free_port();
    json opened = good.request(creator_setup("127.0.0.1:" + std::to_string(port),
                                             {{"sndbuf", "65536"}, {"nodelay", "1"}}));
    INFO(opened.dump());
    REQUIRE(opened.at("type") == "opened");
    CHECK(opened.at("addresses").at(0) == "127.0.0.1:" + std::to_string(port));
}

TEST_CASE("the operator widens the agent's ports and options by name, and only those", "[remote]") {
    const int first = ipcbench::test::free_port();
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-ports",
             std::to_string(first) + "-" + std::to_string(first), "--allow-option",
             "socket.tcp:bind"});
    {
        worker_session s(a, "s3cret-4f1c9e7a2b8d6053");
        json inside = s.request(creator_setup("127.0.0.1:" + std::to_string(first)));
        INFO(inside.dump());
        CHECK(inside.at("type") == "opened");
    }
    worker_session outside(a, "s3cret-4f1c9e7a2b8d6053");
    json reply = outside.request(creator_setup("127.0.0.1:" + std::to_string(first + 1)));
    REQUIRE(reply.at("type") == "error");
    CHECK_THAT(reply.at("message").get<std::string>(),
               Catch::Contains("ports " + std::to_string(first) + "-" + std::to_string(first)));
    // --allow-option took bind: a setup with it reaches the worker (and, bound elsewhere than
    // the reached address, is caught by the check of what the creator opened).
    worker_session elsewhere(a, "s3cret-4f1c9e7a2b8d6053");
    json moved = elsewhere.request(creator_setup("127.0.0.1:0", {{"bind", "127.0.0.3:0"}}));
    INFO(moved.dump());
    REQUIRE(moved.at("type") == "error");
    CHECK_THAT(moved.at("message").get<std::string>(),
               Catch::Contains("the transport listened elsewhere than asked"));
}

TEST_CASE("connectors reach only the client's own address, and a failure says nothing of why",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    // The client comes from 127.0.0.2: the agent's own loopback services (127.0.0.1) are
    // another host's to it, out of reach.
    const int closed_port = ipcbench::test::free_port();
    auto connector = [&](const std::string &host, int port) {
        worker_session s(a, "s3cret-4f1c9e7a2b8d6053", "127.0.0.2");
        json setup = ipcbench::test::setup_frame("", "socket.tcp", "connector",
                                                 host + ":" + std::to_string(port));
        json reply = s.request(setup);
        if (reply.at("type") == "opened")
            reply = s.request({{"type", "connect"}, {"timeout_ns", 2'000'000'000}});
        return reply;
    };
    const json own_host = connector("127.0.0.1", a.port());
    INFO(own_host.dump());
    REQUIRE(own_host.at("type") == "error");
    CHECK_THAT(own_host.at("message").get<std::string>(),
               Catch::Contains("a connector reaches only the client's own address (127.0.0.2)"));
    // Toward the client's own address, a port nobody listens on: the connect fails, and the
    // answer is the same sentence whatever the reason (no "refused" from the kernel).
    const json closed = connector("127.0.0.2", closed_port);
    INFO(closed.dump());
    REQUIRE(closed.at("type") == "error");
    CHECK(closed.at("message") ==
          "the agent could not connect to 127.0.0.2:" + std::to_string(closed_port) +
              " (refused, unreachable or no answer; the agent's log "
              "says which)");
}

// A distant client's handshake over a path of `rtt_ms`: its hello arrives half a round trip
// after it connects, its auth a whole round trip after the challenge left the agent.
bool far_handshake(const agent &a, const std::string &source, int rtt_ms) {
    const int fd = a.connect_raw(source);
    if (fd < 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(rtt_ms / 2));
    const std::string nonce = ipcbench::remote::new_nonce();
    const std::string hello =
        frame(ipcbench::test::client_hello(nonce, {{"done", true}, {"dialled", a.address()}}));
    bool ok = send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) > 0;
    const json challenge = ok ? read_frame(fd) : json();
    ok = challenge.value("type", "") == "challenge";
    std::this_thread::sleep_for(std::chrono::milliseconds(rtt_ms));
    json reply;
    if (ok) {
        const auto t = ipcbench::test::transcript_of(json::parse(hello.substr(4)),
                                                     challenge.value("nonce", ""));
        const std::string token = "s3cret-4f1c9e7a2b8d6053";
        const std::string auth =
            frame({{"type", "auth"},
                   {"proof", ipcbench::remote::handshake_proof(
                                 token, ipcbench::remote::proof_role::client, t)}});
        const auto keys = ipcbench::remote::derive_session_keys(token, t);
        ipcbench::test::seal_fd(fd, keys.to_agent, keys.to_client);
        ok = send(fd, auth.data(), auth.size(), MSG_NOSIGNAL) > 0;
        if (ok) reply = read_frame(fd);
        ipcbench::test::forget_fd(fd);
    }
    close(fd);
    return reply.is_object() && reply.value("type", "") == "goodbye";
}

TEST_CASE("a flood from a client's own address does not keep a distant client out", "[remote]") {
    // The flood and the distant client share 127.0.0.1 (a NAT, a shared host): one unit. Each
    // handshake takes two round trips of 60 ms, longer than the flood takes to rotate the
    // unit's 64 places; a handshake under way keeps its place for its floor.
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    std::atomic<bool> flooding{true};
    std::atomic<int> opened{0};
    std::thread flood([&] {
        std::vector<int> held;
        const auto start = clock_type::now();
        while (flooding && seconds_since(start) < 4.0) {
            const int fd = a.connect_raw("127.0.0.1");
            if (fd >= 0) {
                held.push_back(fd);
                ++opened;
            }
            if (held.size() > 300) {
                close(held.front());
                held.erase(held.begin());
            }
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        for (int fd : held) close(fd);
    });
    while (opened < 200) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int got_in = 0;
    for (int i = 0; i < 10; ++i) got_in += far_handshake(a, "127.0.0.1", 60) ? 1 : 0;
    flooding = false;
    flood.join();
    INFO("flood connections opened: " << opened.load());
    CHECK(got_in == 10);
    CHECK(opened > 200);
}

TEST_CASE("hellos are bounded small and shallow before authentication", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    // 8 MiB of nesting, announced as one frame: refused from its header, never buffered.
    const std::size_t depth = 4u << 20;
    std::string nested(depth, '[');
    nested += std::string(depth, ']');
    std::string big(4, '\0');
    const auto n = static_cast<std::uint32_t>(nested.size());
    for (int k = 0; k < 4; ++k) big[k] = static_cast<char>(n >> (24 - 8 * k));
    const json oversized = answer(exchange_while_sending(a, big + nested));
    CHECK_THAT(oversized.at("message").get<std::string>(),
               Catch::Contains("exceeds the 4096-byte limit"));
    // Within the size bound but nested past the depth bound: refused by the scan.
    std::string shallow_enough =
        "{\"type\":\"hello\",\"x\":" + std::string(1000, '[') + std::string(1000, ']') + "}";
    const json deep = answer(a.exchange(frame(json::parse(shallow_enough))));
    CHECK_THAT(deep.at("message").get<std::string>(), Catch::Contains("nested deeper than 32"));
    // None of it cost the agent more than a small process's memory.
    const long rss = peak_rss_kib(a.pid());
    INFO("agent peak RSS " << rss << " KiB");
    CHECK(rss > 0);
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    CHECK(rss < 64 * 1024 * 6);  // the sanitizers' shadow memory on top
#else
    CHECK(rss < 64 * 1024);
#endif
    CHECK(says_goodbye(a, "", 0));
}

TEST_CASE("a job over the memory budget is refused with the figure, at the agent and locally",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--memory-budget", "1M"});
    worker_session s(a, "s3cret-4f1c9e7a2b8d6053");
    ipcbench::model::job job;
    job.kind = ipcbench::model::job_kind::receive;
    job.settings.transport_id = "socket.tcp";
    job.settings.size_bytes = 65536;
    job.settings.batch = 16;
    json reply = s.request({{"type", "run"}, {"job", json(job)}, {"directions", {"recv"}}});
    INFO(reply.dump());
    REQUIRE(reply.at("type") == "error");
    // 1 stream x 1 direction x 16 x 64 KiB x 2 = 2 MiB, over the 1 MiB the operator set.
    CHECK_THAT(reply.at("message").get<std::string>(),
               Catch::Contains("needs 2 MiB of message buffers per process") &&
                   Catch::Contains("memory budget of 1 MiB") &&
                   Catch::Contains("ipchost serve --memory-budget"));
    // Locally the same rule, before any worker starts: 100 x 1024 x 1 GiB x 2.
    auto local = ipcbench::test::run_ipchost({"--plugin", "socket.unix", "--size", "1G", "--batch",
                                              "1024", "--streams", "100", "--mode", "throughput"});
    CHECK(local.exit_code == 2);
    CHECK_THAT(local.err, Catch::Contains("needs 209715200 MiB") &&
                              Catch::Contains("memory budget of 4096 MiB") &&
                              Catch::Contains("raise --memory-budget"));
}
