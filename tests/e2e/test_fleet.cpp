// `ipchost fleet` over agents on loopback addresses: every ordered pair once, rows that say
// where and when they were measured, and an agent that fails failing only its own rows.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/agent_process.hpp"
#include "support/json_schema.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::run_ipchost;
using ipcbench::test::temp_dir;
using nlohmann::json;

namespace {

std::vector<std::string> fleet_run(const std::string &agents_file) {
    return {"fleet",      "--agents",      agents_file, "--token",  "s3cret-4f1c9e7a2b8d6053",
            "--plugin",   "socket.tcp",    "--size",    "1K",       "--mode",
            "throughput", "--duration",    "0.2",       "--warmup", "0",
            "--verify",   "--concurrency", "2",         "--format", "json"};
}

}  // namespace

TEST_CASE("a fleet mesh measures every ordered pair once, and a wrong token fails only its rows",
          "[remote][fleet]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--max-sessions",
             "2"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        c({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        d({"--token", "wrong-5b3e8c1a9d7f2640", "--allow-peer", "127.0.0.0/8"});
    temp_dir dir;
    const std::string file = dir.path() + "/agents";
    {
        std::ofstream out(file);
        out << "# the fleet\n"
            << a.address() << " zone=a node=n1\n"
            << b.address() << " zone=a node=n2\n\n"
            << c.address() << " zone=b node=n3   # a comment\n"
            << d.address() << " zone=b node=n4\n";
    }
    const auto run = run_ipchost(fleet_run(file), {}, 120);
    INFO(run.err);
    CHECK(run.exit_code == 1);  // d's rows failed
    const json doc = json::parse(run.out);
    std::ifstream schema_file(RESULT_SCHEMA_PATH);
    const auto problems = ipcbench::test::schema_problems(json::parse(schema_file), doc);
    CHECK(problems.empty());
    const json &rows = doc.at("results");
    REQUIRE(rows.size() == 12);  // 4 x 3 ordered pairs
    std::set<std::pair<std::string, std::string>> pairs;
    std::map<int, std::multiset<std::string>> in_round;
    for (const auto &r : rows) {
        const json &f = r.at("fleet");
        const std::string src = f.at("source"), dst = f.at("destination");
        CHECK(src != dst);
        CHECK(pairs.insert({src, dst}).second);
        in_round[f.at("round").get<int>()].insert(src);
        in_round[f.at("round").get<int>()].insert(dst);
        CHECK(f.at("concurrent").get<int>() >= 1);
        CHECK(f.at("concurrent").get<int>() <= 2);
        if (src == d.address() || dst == d.address()) {
            CHECK(r.at("status") == "failed");
            CHECK_THAT(r.at("error").get<std::string>(),
                       Catch::Contains("the agent at " + d.address() +
                                       " could not prove it holds this token"));
            continue;
        }
        INFO(r.dump());
        REQUIRE(r.at("status") == "ok");
        const json &i = r.at("integrity");
        CHECK(i.at("messages_sent").get<std::uint64_t>() > 0);
        CHECK(i.at("messages_received") == i.at("messages_sent"));
        CHECK(i.at("corrupted") == 0);
        CHECK(r.at("sender").at("agent_sessions").get<int>() >= 1);
        CHECK(r.at("receiver").at("agent_sessions").get<int>() >= 1);
    }
    CHECK(pairs.size() == 12);
    // No agent in two pairs of one round; 4 agents: 6 rounds of 2 pairs.
    CHECK(in_round.size() == 6);
    for (const auto &[round, agents] : in_round)
        for (const auto &name : agents) CHECK(agents.count(name) == 1);
    // The labels came from the file.
    for (const auto &r : rows)
        if (r.at("fleet").at("source") == c.address())
            CHECK(r.at("fleet").at("source_labels") == json{{"node", "n3"}, {"zone", "b"}});
}

TEST_CASE("a fleet names what is wrong with its agent list", "[fleet][cli]") {
    temp_dir dir;
    const std::string file = dir.path() + "/agents";
    auto with_lines = [&](const std::string &lines) {
        std::ofstream(file) << lines;
        return run_ipchost({"fleet", "--agents", file, "--token", "x", "--plugin", "socket.tcp"});
    };
    const struct {
        std::string lines, error;
    } bad[] = {
        {"127.0.0.1:7451\nlocalhost:7452\n", file + ":2: 'localhost' is not a numeric"},
        {"127.0.0.1:7451 zone\n127.0.0.1:7452\n", "label 'zone' must be KEY=VALUE"},
        {"127.0.0.1:7451\n127.0.0.1:7451\n", "is listed twice"},
        {"127.0.0.1:7451\n", "needs two agents at least"},
        {"dns:no-such-host.invalid:7451\n127.0.0.1:1\n", "cannot resolve 'no-such-host.invalid'"},
    };
    for (const auto &b : bad) {
        INFO(b.lines);
        const auto run = with_lines(b.lines);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains(b.error));
    }
    const auto star = run_ipchost({"fleet", "--agent", "127.0.0.1:1", "--agent", "127.0.0.1:2",
                                   "--token", "x", "--plugin", "socket.tcp", "--pairs", "star=n9"});
    CHECK(star.exit_code == 2);
    CHECK_THAT(star.err, Catch::Contains("star=n9: no agent has that address or a label"));
    const auto both = run_ipchost({"fleet", "--agent", "127.0.0.1:1", "--agent", "127.0.0.1:2",
                                   "--pairs", "mesh", "--sample", "3"});
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.err, Catch::Contains("drop --pairs or --sample"));
    const auto scope = run_ipchost({"--agent", "127.0.0.1:1", "--plugin", "pipe.fifo"});
    CHECK(scope.exit_code == 2);
    CHECK_THAT(scope.err, Catch::Contains("ipchost fleet"));
}

TEST_CASE("dns: names every address behind a name as an agent of its own", "[fleet]") {
    // localhost is in /etc/hosts: 127.0.0.1 (and ::1 where the host lists it). Nothing listens
    // on port 1, so every pair fails naming its agent: what matters is who was asked.
    const auto run =
        run_ipchost({"fleet", "--agent", "dns:localhost:1", "--agent", "127.0.0.2:1", "--token",
                     "x", "--plugin", "socket.tcp", "--mode", "throughput", "--format", "json"},
                    {}, 60);
    INFO(run.err);
    const json rows = json::parse(run.out).at("results");
    std::set<std::string> agents;
    for (const auto &r : rows) agents.insert(r.at("fleet").at("source").get<std::string>());
    CHECK(agents.count("127.0.0.1:1") == 1);
    CHECK(agents.count("127.0.0.2:1") == 1);
    for (const auto &r : rows) CHECK(r.at("status") == "failed");
}

TEST_CASE("dns: answers where no agent can be are refused by name, before anything connects",
          "[fleet]") {
    // getaddrinfo returns a numeric name as itself: each stands for a DNS answer of that kind.
    const struct {
        std::string name, says;
    } answers[] = {
        {"0.0.0.0", "resolves to 0.0.0.0, which is unspecified"},
        {"169.254.169.254", "resolves to 169.254.169.254, which is link-local"},
        {"224.0.0.1", "which is multicast"},
        {"255.255.255.255", "which is broadcast"},
        {"127.0.0.1", "resolves to 127.0.0.1, which is loopback"},  // not asked for by name
        {"::", "resolves to ::, which is unspecified"},
        {"fe80::1", "which is link-local"},
        {"ff02::1", "which is multicast"},
    };
    for (const auto &a : answers) {
        INFO(a.name);
        const auto run = run_ipchost({"fleet", "--agent", "dns:" + a.name + ":7451", "--agent",
                                      "127.0.0.2:1", "--token", "x", "--plugin", "socket.tcp"});
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains(a.says) && Catch::Contains("refused"));
    }
}

TEST_CASE("an --agents line longer than its bound is refused unread, even with no end", "[fleet]") {
    // /dev/zero has no newline: read whole, it would take the machine's memory (and the 30 s).
    const auto run = run_ipchost(
        {"fleet", "--agents", "/dev/zero", "--token", "x", "--plugin", "socket.tcp"}, {}, 30);
    INFO(run.err);
    CHECK_FALSE(run.timed_out);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("/dev/zero:1: a line longer than 4 KiB"));
    // As much memory as a fleet refused over a one-line file, give or take 16 MiB (a sanitizer
    // build's own memory is in both).
    temp_dir tmp;
    std::ofstream(tmp.path() + "/short") << "not-an-agent\n";
    const auto small = run_ipchost(
        {"fleet", "--agents", tmp.path() + "/short", "--token", "x", "--plugin", "socket.tcp"});
    CHECK(small.exit_code == 2);
    CHECK(run.max_rss_kib < small.max_rss_kib + 16 * 1024);
}

TEST_CASE("Ctrl+C stops a fleet after its running round and keeps every row measured",
          "[remote][fleet]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"}),
        c({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    temp_dir dir;
    const std::string output = dir.path() + "/fleet.json";
    double exit_s = 0;
    // Three agents: six rounds of one pair, each case 1 s; the signal comes during the second.
    const auto run = ipcbench::test::run_process_signalled(
        {IPCHOST_PATH, "fleet",      "--agent",   a.address(), "--agent",
         b.address(),  "--agent",    c.address(), "--token",   "s3cret-4f1c9e7a2b8d6053",
         "--plugin",   "socket.tcp", "--size",    "1K",        "--mode",
         "throughput", "--duration", "1",         "--warmup",  "0",
         "--format",   "json",       "--output",  output},
        1.8, SIGINT, &exit_s, 90);
    INFO(run.err);
    CHECK(run.exit_code == 130);
    std::ifstream in(output);
    const json rows = json::parse(in).at("results");
    REQUIRE_FALSE(rows.empty());
    CHECK(rows.size() < 6);
    int round = 0;
    for (const auto &r : rows) {
        CHECK(r.at("status") == "ok");  // the running round finished: no half-measured row
        CHECK(r.at("fleet").at("round").get<int>() == ++round);
    }
    CHECK_THAT(run.err,
               Catch::Contains("interrupted after round " + std::to_string(round) + " of 6"));
}

namespace {

// An agent that holds the fleet's token and goes silent: it answers the roll call and every
// handshake (a sealed welcome), then says nothing on the session and holds it open.
class tarpit {
public:
    explicit tarpit(const std::string &token) : token_(token) {
        listener_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(bind(listener_, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
        REQUIRE(listen(listener_, 16) == 0);
        REQUIRE(getsockname(listener_, reinterpret_cast<sockaddr *>(&a), &len) == 0);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~tarpit() {
        shutdown(listener_, SHUT_RDWR);
        close(listener_);
        thread_.join();
        for (int fd : held_) close(fd);
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

private:
    void serve() {
        for (;;) {
            const int c = accept(listener_, nullptr, nullptr);
            if (c < 0) return;
            timeval tv{5, 0};
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            const json hello = ipcbench::test::read_frame(c);
            if (hello.value("type", "") == "hello") {
                ipcbench::test::answer_as_agent(c, hello, token_);
                const std::string welcome = ipcbench::test::frame_on(
                    c,
                    {{"type", "welcome"}, {"agent", "ipchost 9.9.9"}, {"labels", json::object()}});
                (void)!write(c, welcome.data(), welcome.size());
            }
            ipcbench::test::forget_fd(c);
            held_.push_back(c);  // silent from here on, never closed while the test runs
        }
    }
    std::string token_;
    int listener_ = -1, port_ = 0;
    std::thread thread_;
    std::vector<int> held_;
};

}  // namespace

TEST_CASE("an agent that misses a pair's deadline fails its other pairs at once",
          "[remote][fleet]") {
    const std::string token = "s3cret-4f1c9e7a2b8d6053";
    agent a({"--token", token, "--allow-peer", "127.0.0.0/8"}),
        b({"--token", token, "--allow-peer", "127.0.0.0/8"});
    tarpit t(token);
    const auto start = std::chrono::steady_clock::now();
    const auto run =
        run_ipchost({"fleet",     "--agent",   a.address(),  "--agent",    b.address(),  "--agent",
                     t.address(), "--token",   token,        "--plugin",   "socket.tcp", "--size",
                     "1K",        "--mode",    "throughput", "--duration", "0.2",        "--warmup",
                     "0",         "--timeout", "3",          "--format",   "json"},
                    {}, 600);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(run.err);
    INFO("took " << took << " s");
    CHECK(run.exit_code == 1);
    const json rows = json::parse(run.out).at("results");
    REQUIRE(rows.size() == 6);
    int with_tarpit = 0, at_once = 0;
    for (const auto &r : rows) {
        const bool involved = r.at("fleet").at("source") == t.address() ||
                              r.at("fleet").at("destination") == t.address();
        INFO(r.dump());
        if (!involved) {
            CHECK(r.at("status") == "ok");  // a and b between themselves are measured
            continue;
        }
        ++with_tarpit;
        CHECK(r.at("status") == "failed");
        const std::string error = r.at("error");
        if (error.find("missed a pair's deadline") != std::string::npos) ++at_once;
    }
    CHECK(with_tarpit == 4);
    CHECK(at_once >= 2);  // after its first miss (or two: one each way), the rest at once
}
