// `ipchost serve` faces the network: it must refuse what it should, answer garbage with an
// error, drop silent clients, serve one client at a time, and still work afterwards.
// Everything here stays on loopback; tests/netns/netns_test.sh crosses real (namespaced) hosts.
#include <catch2/catch.hpp>

#include <tuple>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/agent_process.hpp"
#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

using ipcbench::test::agent;
using ipcbench::test::answer;
using ipcbench::test::frame;
using ipcbench::test::free_port;
using ipcbench::test::read_frame;
using ipcbench::test::setup_frame;
using ipcbench::test::worker_session;

TEST_CASE("the agent runs cases for a client with the right token", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    REQUIRE(a.reachable());
    auto run = run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                            "socket.tcp,udp.inet,pipe.fifo", "--size", "1K", "--duration", "0.2",
                            "--warmup", "0", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json doc = json::parse(run.out);
    CHECK(doc.at("settings").at("peer") == a.address());
    REQUIRE_FALSE(doc.at("results").empty());  // a loop over nothing asserts nothing
    for (const auto &r : doc.at("results")) {
        INFO(r.dump());
        if (r.at("transport") == "pipe.fifo") {
            CHECK(r.at("status") == "skipped");
            CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains("cannot cross hosts"));
            continue;
        }
        REQUIRE(r.at("status") == "ok");
        // The remote side's CPU, memory and counts come back like a local side's.
        CHECK(r.at("receiver").at("max_rss_kib").get<long>() > 0);
        CHECK(r.at("integrity").at("messages_received").get<long>() > 0);
    }
}

TEST_CASE("a wrong token is refused, in the client's own words", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    auto run = run_ipchost({"--peer", a.address(), "--token", "guess", "--plugin", "socket.tcp",
                            "--size", "1K", "--mode", "throughput", "--format", "json"});
    CHECK(run.exit_code == 1);
    // The agent's proof fails first: the client sends nothing made with its token.
    CHECK_THAT(run.out, Catch::Contains("the agent at " + a.address() +
                                        " could not prove it holds this token"));
    auto reply = a.authenticate("guess");
    CHECK(reply.at("type") == "error");
    CHECK(reply.at("message") == "wrong token");
    auto version = a.authenticate("s3cret-4f1c9e7a2b8d6053", {{"protocol", 99}});
    CHECK_THAT(version.at("message").get<std::string>(),
               Catch::Contains("agent protocol version 99") && Catch::Contains("speaks version 3"));
}

TEST_CASE("without a token the agent makes one, private, and refuses clients without it",
          "[remote]") {
    ipcbench::test::temp_dir state;
    std::string token_file;
    {
        agent a({"--once"}, {{"XDG_RUNTIME_DIR", state.path()}});
        token_file = state.path() + "/ipcbench/agent-" + std::to_string(a.port()) + ".token";
        struct stat st {};
        REQUIRE(stat(token_file.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0600);
        std::ifstream in(token_file);
        std::string token;
        std::getline(in, token);
        CHECK(token.size() == 64);
        auto refused = a.authenticate("");
        CHECK(refused.at("message") == "wrong token");
        auto run = run_ipchost({"--peer", a.address(), "--token-file", token_file, "--plugin",
                                "socket.tcp", "--size", "64", "--mode", "throughput", "--duration",
                                "0.1", "--format", "json"});
        INFO(run.err);
        CHECK(run.exit_code == 0);
    }
    CHECK_FALSE(std::filesystem::exists(token_file));  // removed when the agent stops
}

TEST_CASE("the agent refuses to run as root without --allow-root", "[remote]") {
    if (geteuid() != 0) IPCBENCH_SKIP("only root can show it; the suite runs as another user");
    auto run = run_ipchost(
        {"serve", "--bind", "127.0.0.1:" + std::to_string(free_port()), "--token", "x"}, {}, 10);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err,
               Catch::Contains("refusing to serve as root") && Catch::Contains("--allow-root"));
}

TEST_CASE("a client cannot make the agent load a library of its choosing", "[remote]") {
    ipcbench::test::temp_dir dir;
    const std::string marker = dir.path() + "/constructor-ran";
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"},
            {{"IPCB_HOSTILE", "marker"}, {"IPCB_HOSTILE_MARKER", marker}});
    worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
    const std::string library = std::string(HOSTILE_PLUGIN_DIR) + "/ipcb-hostile.so";
    for (const std::string id : {"hostile.stream", "socket.tcp"}) {
        json reply = session.request(setup_frame(library, id, "creator", "127.0.0.1:0"));
        INFO(reply.dump());
        if (id == "hostile.stream") {
            REQUIRE(reply.at("type") == "error");
            CHECK_THAT(reply.at("message").get<std::string>(),
                       Catch::Contains("not installed on this host"));
        } else {
            CHECK(reply.at("type") == "opened");  // the agent's own socket.tcp, path ignored
        }
    }
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("the agent runs only cross-host transports, on network addresses", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    // A refused request ends its session: each rule gets a client of its own, broken alone.
    auto ask = [&](const json &setup) {
        worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
        return session.request(setup);
    };
    // A network address the policy allows, on a transport that cannot cross hosts.
    json local = ask(setup_frame("", "pipe.anon", "creator", "127.0.0.1:0"));
    CHECK(local.at("type") == "error");
    CHECK_THAT(local.at("message").get<std::string>(), Catch::Contains("cannot cross hosts"));
    for (const std::string address :
         {"/proc/1/fd/0", "/tmp/x.sock", "localhost:80", "127.0.0.1", "127.0.0.1:0"}) {
        json reply = ask(setup_frame("", "socket.tcp", "connector", address));
        INFO(address << ": " << reply.dump());
        CHECK(reply.at("type") == "error");
        CHECK_THAT(reply.at("message").get<std::string>(), Catch::Contains("refused"));
    }
    json bind = ask(setup_frame("", "udp.inet", "creator", "/tmp/x"));
    CHECK(bind.at("type") == "error");
    CHECK_THAT(bind.at("message").get<std::string>(), Catch::Contains("needs a port"));
}

TEST_CASE("the agent's worker type-checks every field of a job and runs no check jobs",
          "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    {
        worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
        json opened = session.request(setup_frame("", "socket.tcp", "creator", "127.0.0.1:0"));
        REQUIRE(opened.at("type") == "opened");
    }
    json settings = {{"transport", "socket.tcp"},
                     {"mode", "throughput"},
                     {"direction", "forward"},
                     {"size_bytes", 64},
                     {"duration_s", 0.1},
                     {"warmup_s", 0},
                     {"count", 0},
                     {"timeout_s", 0},
                     {"streams", 1},
                     {"io", "threads"},
                     {"threads", 1},
                     {"rate_per_s", 0},
                     {"burst", 1},
                     {"verify", false},
                     {"batch", 1},
                     {"zero_copy", "auto"},
                     {"interval_s", 0},
                     {"sender_cpu", -1},
                     {"receiver_cpu", -1},
                     {"options", json::object()}};
    auto job = [&](const char *key, json value) {
        json c = settings;
        c[key] = std::move(value);
        return json{{"type", "run"},
                    {"directions", {"send"}},
                    {"job",
                     {{"kind", "receive"},
                      {"case", c},
                      {"reliable", true},
                      {"stream", true},
                      {"cpu", -1}}}};
    };
    for (const auto &[key, value, expected] :
         {std::tuple<const char *, json, const char *>{"streams", 100000, "'streams' is 100000"},
          {"io", "uring!", "'io' has the unknown value"},
          {"mode", "<script>", "'mode' has the unknown value"},
          {"size_bytes", "64", "'size_bytes' must be a non-negative integer"},
          {"duration_s", -5, "'duration_s' is out of range"},
          {"options", json{{"k", json::array()}}, "'options'"}}) {
        worker_session session(a, "s3cret-4f1c9e7a2b8d6053");  // a refusal ends the session
        json reply = session.request(job(key, value));
        INFO(key << ": " << reply.dump());
        REQUIRE(reply.at("type") == "error");
        CHECK_THAT(reply.at("message").get<std::string>(), Catch::Contains(expected));
    }
    worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
    json check =
        session.request({{"type", "run"},
                         {"directions", {"send"}},
                         {"job", {{"kind", "check_close_endpoints"}, {"delay_ms", 1e12}}}});
    REQUIRE(check.at("type") == "error");
    CHECK_THAT(check.at("message").get<std::string>(),
               Catch::Contains("an agent does not run conformance checks"));
}

TEST_CASE("a worker takes nothing before its welcome, and only a version it offered", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    const json setup = ipcbench::test::setup_frame("", "socket.tcp", "creator", "127.0.0.1:0");
    {
        worker_session unwelcomed(a, "s3cret-4f1c9e7a2b8d6053", "", "");
        const json reply = unwelcomed.request(setup);
        INFO(reply.dump());
        REQUIRE(reply.at("type") == "error");
        CHECK_THAT(reply.at("message").get<std::string>(),
                   Catch::Contains("a 'setup' message before the 'welcome'"));
    }
    {
        worker_session wrong(a, "s3cret-4f1c9e7a2b8d6053", "", "2.0");
        const json reply = wrong.request(setup);
        INFO(reply.dump());
        REQUIRE(reply.at("type") == "error");
        CHECK_THAT(reply.at("message").get<std::string>(),
                   Catch::Contains("picked worker protocol '2.0', which this worker did not "
                                   "offer"));
    }
    worker_session right(a, "s3cret-4f1c9e7a2b8d6053");
    const json opened = right.request(setup);
    INFO(opened.dump());
    CHECK(opened.at("type") == "opened");
    CHECK(opened.at("addresses").size() == 1);
}

TEST_CASE("malformed hellos get an error frame and the agent lives on", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    const std::vector<std::pair<json, std::string>> attacks = {
        {{{"type", "hello"}, {"protocol", 3}, {"nonce", 12345}}, "'nonce' must be a string"},
        {{{"type", "hello"}, {"protocol", 3}, {"nonce", "00ff"}}, "'nonce' must be 64"},
        {{{"type", "hello"}, {"protocol", 3}}, "'nonce' is missing"},
        {{{"type", "hello"}, {"protocol", "2"}}, "'protocol' must be an"},
        {{{"type", "hello"}, {"protocol", json::array({2})}}, "'protocol' must be an"},
        {{{"type", "hello"}, {"protocol", 1.5}}, "'protocol' must be an"},
        {ipcbench::test::client_hello(std::string(64, 'a'), {{"done", "yes"}}), "'done' must be"},
        {ipcbench::test::client_hello(std::string(64, 'a'), {{"dialled", 7451}}),
         "'dialled' must be a string"},
        {ipcbench::test::client_hello(std::string(64, 'a'), {{"dialled", "10.9.9.9:1"}}),
         "the client dialled 10.9.9.9:1, but the connection reached this agent at 127.0.0.1:"},
        {ipcbench::test::client_hello(std::string(64, 'a'), {{"client", json::object()}}),
         "'client' must be"},
        {{{"type", 5}}, "string \"type\""},
        {{{"type", "hello"}}, "'protocol' is missing"},
    };
    for (const auto &[hello, expected] : attacks) {
        INFO(hello.dump());
        auto reply = answer(a.exchange(frame(hello)));
        CHECK(reply.at("type") == "error");
        CHECK_THAT(reply.at("message").get<std::string>(), Catch::Contains(expected));
        REQUIRE(a.reachable());
    }
    auto array = answer(a.exchange(std::string("\0\0\0\x03[1]", 7)));
    CHECK(array.at("type") == "error");
    auto run =
        run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                     "socket.tcp", "--size", "64", "--mode", "throughput", "--duration", "0.1"});
    CHECK(run.exit_code == 0);
}

TEST_CASE("silent unauthenticated connections do not lock the rightful client out", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    std::vector<int> silent;
    for (int i = 0; i < 12; ++i) silent.push_back(a.connect_raw());  // more than the 8 slots
    auto run = run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                            "socket.tcp", "--size", "64", "--mode", "throughput", "--duration",
                            "0.1", "--format", "json"});
    INFO(run.out << run.err);
    CHECK(run.exit_code == 0);
    for (int fd : silent) close(fd);
}

TEST_CASE("garbage, oversized and malformed frames get an error, the agent lives on", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    auto oversized = answer(a.exchange(std::string("\x7f\xff\xff\xff", 4)));
    CHECK_THAT(oversized.at("message").get<std::string>(), Catch::Contains("exceeds"));
    auto not_json = answer(a.exchange(std::string("\0\0\0\x05hello", 9)));
    CHECK_THAT(not_json.at("message").get<std::string>(), Catch::Contains("not valid JSON"));
    auto wrong_first = answer(a.exchange(frame({{"type", "run"}})));
    CHECK_THAT(wrong_first.at("message").get<std::string>(), Catch::Contains("expected a hello"));
    // Every input of the fuzzer's seed corpus (minus its first byte, the chunking hint).
    for (const auto &entry : std::filesystem::directory_iterator(FUZZ_CORPUS_DIR)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        INFO(entry.path());
        std::string reply = a.exchange(bytes.substr(1));
        if (!reply.empty()) CHECK(answer(reply).at("type") == "error");
    }
    CHECK(a.reachable());
    auto run =
        run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                     "socket.tcp", "--size", "64", "--mode", "throughput", "--duration", "0.1"});
    CHECK(run.exit_code == 0);
}

TEST_CASE("a silent client is dropped, before and after the handshake", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--idle-timeout", "1"});
    int silent = a.connect_raw();
    REQUIRE(silent >= 0);
    json dropped = read_frame(silent);  // within the 5 s receive timeout
    close(silent);
    REQUIRE(dropped.is_object());
    CHECK_THAT(dropped.at("message").get<std::string>(),
               Catch::Contains("no handshake within 1 s"));

    // Authenticated, then silent with nothing asked of the worker: the session ends.
    worker_session session(a, "s3cret-4f1c9e7a2b8d6053");
    json idle = read_frame(session.fd);
    REQUIRE(idle.is_object());
    CHECK_THAT(idle.at("message").get<std::string>(), Catch::Contains("idle for 1 s"));
    CHECK(read_frame(session.fd).is_null());  // and the connection is closed
}

TEST_CASE("a second authenticated client is told busy", "[remote]") {
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053"});
    worker_session first(a, "s3cret-4f1c9e7a2b8d6053");
    auto busy = a.authenticate("s3cret-4f1c9e7a2b8d6053");
    CHECK_THAT(busy.at("message").get<std::string>(), Catch::Contains("busy"));
    // Without the token a client learns nothing about the agent's state.
    auto stranger = a.authenticate("guess");
    CHECK(stranger.at("message") == "wrong token");
}

TEST_CASE("a case longer than the idle timeout is work, not silence", "[remote]") {
    // The deadline overlaps the work: a 2.5 s case on an agent that drops silent sessions after
    // 1 s. The request stays outstanding the whole time, so the session must live.
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--idle-timeout", "1"});
    auto run = run_ipchost({"--peer", a.address(), "--token", "s3cret-4f1c9e7a2b8d6053", "--plugin",
                            "socket.tcp", "--size", "1K", "--mode", "throughput", "--duration",
                            "2.5", "--warmup", "0", "--format", "json"},
                           {}, 60);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "ok");
    CHECK(r.at("duration_s").get<double>() > 2.0);
}
