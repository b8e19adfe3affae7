// What a deployment (a Kubernetes DaemonSet, a fleet Job) needs of an agent besides a case: the
// token from the environment, never inherited by what the agent starts; labels that say where
// the agent runs, told in its welcome and carried into fleet rows by the fleet's roll call; the
// agent list from a name; the fleet's data ports. Loopback only.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::agent;
using ipcbench::test::children_of;
using ipcbench::test::frame;
using ipcbench::test::read_frame;
using ipcbench::test::run_ipchost;
using ipcbench::test::send_hello_and_auth;
using ipcbench::test::temp_dir;
using ipcbench::test::worker_session;
using nlohmann::json;

namespace {

// The environment a process started with, as /proc shows it ("" when it is gone).
std::string environment_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A raw client's hello with `fields` added; the socket, past nothing.
int hello(const agent &a, const json &fields) {
    const int fd = a.connect_raw();
    REQUIRE(fd >= 0);
    json extra = fields;
    const std::string token = extra.value("token", "s3cret-4f1c9e7a2b8d6053");
    extra.erase("token");
    REQUIRE(send_hello_and_auth(fd, token, extra).value("type", "") == "challenge");
    return fd;
}

std::vector<std::string> small_fleet(std::vector<std::string> where) {
    std::vector<std::string> args = {"fleet"};
    args.insert(args.end(), where.begin(), where.end());
    for (const char *a :
         {"--token", "s3cret-4f1c9e7a2b8d6053", "--plugin", "socket.tcp", "--size", "1K", "--mode",
          "throughput", "--duration", "0.1", "--warmup", "0", "--format", "json"})
        args.emplace_back(a);
    return args;
}

}  // namespace

TEST_CASE("a token from --token-env authenticates, and nothing the agent starts inherits it",
          "[remote]") {
    agent a({"--token-env", "IPCB_TEST_SECRET", "--max-sessions", "2", "--max-sessions-per-client",
             "2"},
            {{"IPCB_TEST_SECRET", "s3cret-4f1c9e7a2b8d6053"}});
    REQUIRE(a.reachable());
    // The right token starts a session with a worker; that worker's environment has no token.
    worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
    const auto workers = children_of(a.pid());
    REQUIRE(workers.size() == 1);
    const std::string env = environment_of(workers.front());
    REQUIRE(!env.empty());  // the worker's environment was read (PATH at least)
    CHECK(env.find("IPCB_TEST_SECRET") == std::string::npos);
    CHECK(env.find("s3cret-4f1c9e7a2b8d6053") == std::string::npos);
    // Nor does the agent's own environment block, which /proc shows to its user while it runs.
    const std::string own = environment_of(a.pid());
    REQUIRE(own.find("PATH=") != std::string::npos);
    CHECK(own.find("s3cret-4f1c9e7a2b8d6053") == std::string::npos);
    CHECK(own.find("IPCB_TEST_SECRET") == std::string::npos);
    // Another token is refused as with --token.
    CHECK_THAT(a.authenticate("other").value("message", ""), Catch::Contains("wrong token"));
    // A client takes its token the same way.
    const auto run = run_ipchost(
        {"--peer", a.address(), "--token-env", "IPCB_CLIENT_SECRET", "--plugin", "socket.tcp",
         "--size", "1K", "--mode", "latency", "--count", "50", "--format", "json"},
        {{"IPCB_CLIENT_SECRET", "s3cret-4f1c9e7a2b8d6053"}});
    INFO(run.err);
    CHECK(run.exit_code == 0);
}

TEST_CASE(
    "a token variable (--token-env) names a missing, empty or misnamed variable and a second token "
    "source",
    "[remote][cli]") {
    struct bad {
        std::vector<std::string> args;
        std::map<std::string, std::string> env;
        std::string says;
    };
    const std::vector<bad> cases = {
        {{"serve", "--token-env", "IPCB_NOT_SET_ANYWHERE"},
         {},
         "--token-env: the environment variable IPCB_NOT_SET_ANYWHERE is not set"},
        {{"serve", "--token-env", "IPCB_EMPTY"},
         {{"IPCB_EMPTY", "  "}},
         "the environment variable IPCB_EMPTY is empty"},
        {{"serve", "--token-env", "1-BAD"}, {}, "'1-BAD' is no environment variable name"},
        {{"serve", "--token-env", "IPCB_T", "--token", "x"},
         {{"IPCB_T", "y"}},
         "--token, --token-file and --token-env exclude each other"},
        {{"compare", "a.json", "b.json", "--token-env", "IPCB_T"},
         {{"IPCB_T", "y"}},
         "--token-env is an option of"},
    };
    for (const auto &c : cases) {
        const auto run = run_ipchost(c.args, c.env);
        INFO(c.says << "\n" << run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains(c.says));
    }
}

TEST_CASE("an agent tells its labels in every welcome, and a roll call starts no worker",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--label", "node=n1", "--label", "zone=eu-1a",
             "--max-sessions", "2"});
    REQUIRE(a.reachable());
    const int roll = hello(a, {{"session", "roll_call"}});
    const json who = read_frame(roll);
    CHECK(who.value("type", "") == "welcome");
    CHECK(who.at("labels") == json{{"node", "n1"}, {"zone", "eu-1a"}});
    CHECK(who.at("sessions") == 0);
    CHECK(who.at("max_sessions") == 2);
    CHECK_THAT(who.value("agent", ""), Catch::StartsWith("ipchost "));
    CHECK(read_frame(roll).is_null());  // closed: nothing else follows
    close(roll);
    CHECK(children_of(a.pid()).empty());
    // A roll call with the wrong token learns nothing.
    const int wrong = hello(a, {{"session", "roll_call"}, {"token", "guess"}});
    const json refused = read_frame(wrong);
    CHECK(refused.value("type", "") == "error");
    CHECK(refused.find("labels") == refused.end());
    close(wrong);
    // A worker session's welcome carries them too.
    const int work = hello(a, json::object());
    CHECK(read_frame(work).at("labels").at("node") == "n1");
    close(work);
}

TEST_CASE("serve --label takes KEY=VALUE by the label rule, naming what breaks it", "[cli]") {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"node", "must be KEY=VALUE"},
        {"-x=1", "a label key starts with a letter or digit"},
        {"no de=x", "only letters, digits"},
        {"node=a#b", "no white space and no '#'"},
        {"k=" + std::string(129, 'v'), "at most 128 characters"},
    };
    for (const auto &[label, says] : bad) {
        const auto run = run_ipchost({"serve", "--token", "x", "--label", label});
        INFO(label << "\n" << run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains("--label") && Catch::Contains(says));
    }
    const auto elsewhere = run_ipchost({"check", "--label", "node=n1", "--plugin", "pipe.fifo"});
    CHECK(elsewhere.exit_code == 2);
    CHECK_THAT(elsewhere.err, Catch::Contains("--label is an option of ipchost serve"));
    // A run takes labels too, by the same rule, and its result carries them (ipchost trend).
    const auto bad_run = run_ipchost({"--label", "no de=x", "--plugin", "pipe.fifo"});
    CHECK(bad_run.exit_code == 2);
    CHECK_THAT(bad_run.err, Catch::Contains("only letters, digits"));
    const auto run =
        run_ipchost({"--label", "commit=abc123", "--plugin", "pipe.fifo", "--mode", "latency",
                     "--count", "100", "--warmup", "0", "--format", "json"});
    REQUIRE(run.exit_code == 0);
    CHECK(nlohmann::json::parse(run.out).at("labels") == nlohmann::json({{"commit", "abc123"}}));
}

TEST_CASE("a fleet's rows carry the labels the agents told at the roll call, the list's first",
          "[remote][fleet]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
             "node=n1", "--label", "zone=z1"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
           "node=n2"});
    temp_dir dir;
    const std::string file = dir.path() + "/agents";
    std::ofstream(file) << a.address() << " zone=from-list\n" << b.address() << "\n";
    // --pairs star= may name a label only the agent told (n2).
    const auto run = run_ipchost(small_fleet({"--agents", file, "--pairs", "star=n2"}), {}, 120);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.err, Catch::Contains("roll call: 2 of 2 agents answered"));
    const json rows = json::parse(run.out).at("results");
    REQUIRE(rows.size() == 2);
    for (const auto &r : rows) {
        const json &f = r.at("fleet");
        const json &a_labels =
            f.at("source") == a.address() ? f.at("source_labels") : f.at("destination_labels");
        const json &b_labels =
            f.at("source") == b.address() ? f.at("source_labels") : f.at("destination_labels");
        CHECK(a_labels == json{{"node", "n1"}, {"zone", "from-list"}});
        CHECK(b_labels == json{{"node", "n2"}});
        CHECK(r.at("status") == "ok");
    }
}

TEST_CASE("an agent that does not answer the roll call is named, and its pairs fail with it",
          "[remote][fleet]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8"});
    const std::string nobody = "127.0.0.1:" + std::to_string(ipcbench::test::free_port());
    const auto run = run_ipchost(small_fleet({"--agent", a.address(), "--agent", nobody}), {}, 120);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Catch::Contains("roll call: " + nobody) &&
                            Catch::Contains("roll call: 1 of 2 agents answered"));
    const json rows = json::parse(run.out).at("results");
    REQUIRE(rows.size() == 2);
    for (const auto &r : rows) {
        CHECK(r.at("status") == "failed");
        CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains(nobody));
    }
}

TEST_CASE("fleet --agents takes dns:NAME:PORT itself, and --data-port reaches each destination",
          "[remote][fleet]") {
    const auto unresolved = run_ipchost(small_fleet({"--agents", "dns:no-such-host.invalid:7451"}));
    CHECK(unresolved.exit_code == 2);
    CHECK_THAT(unresolved.err, Catch::Contains("--agents 'dns:no-such-host.invalid:7451'") &&
                                   Catch::Contains("cannot resolve 'no-such-host.invalid'"));
    // Both agents let data endpoints listen only on one port: the fleet's --data-port is used
    // on each destination when it is that port, and refused by the agent when it is another.
    const int port = ipcbench::test::free_port();
    const std::string allowed = std::to_string(port) + "-" + std::to_string(port);
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--allow-ports",
             allowed}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--allow-ports",
           allowed});
    const auto fits = run_ipchost(small_fleet({"--agent", a.address(), "--agent", b.address(),
                                               "--data-port", std::to_string(port)}),
                                  {}, 120);
    INFO(fits.err);
    CHECK(fits.exit_code == 0);
    const auto outside =
        run_ipchost(small_fleet({"--agent", a.address(), "--agent", b.address(), "--data-port",
                                 std::to_string(port == 65535 ? port - 1 : port + 1)}),
                    {}, 120);
    CHECK(outside.exit_code == 1);
    const json rows = json::parse(outside.out);  // alive for the loop: not a temporary's member
    REQUIRE(rows.at("results").size() == 2);
    for (const auto &r : rows.at("results")) {
        CHECK(r.at("status") == "failed");
        CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains("--allow-ports"));
    }
}
