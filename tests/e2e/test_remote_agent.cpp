// `ipchost serve` faces the network: it must refuse what it should, answer garbage with an
// error, drop silent clients, serve one client at a time, and still work afterwards.
// Everything here stays on loopback; tests/netns/netns_test.sh crosses real (namespaced) hosts.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

// An `ipchost serve` in the background for one test.
class agent {
public:
    explicit agent(std::vector<std::string> args) {
        port_ = 20000 + static_cast<int>(getpid() % 20000);
        args.insert(args.begin(),
                    {IPCHOST_PATH, "serve", "--bind", "127.0.0.1:" + std::to_string(port_)});
        pid_ = fork();
        if (pid_ == 0) {
            std::vector<char *> argv;
            for (auto &a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        for (int i = 0; i < 100 && !reachable(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ~agent() {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
    int port() const { return port_; }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    bool reachable() const {
        int fd = connect_raw();
        if (fd < 0) return false;
        close(fd);
        return true;
    }
    int connect_raw() const {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port_));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
            close(fd);
            return -1;
        }
        timeval tv{5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        return fd;
    }
    // Sends raw bytes, returns everything the agent answers until it closes (or 5 s pass).
    std::string exchange(const std::string &bytes) const {
        int fd = connect_raw();
        REQUIRE(fd >= 0);
        if (!bytes.empty()) REQUIRE(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) >= 0);
        std::string reply;
        char buf[4096];
        ssize_t n;
        while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
            reply.append(buf, static_cast<std::size_t>(n));
        close(fd);
        return reply;
    }

private:
    pid_t pid_ = -1;
    int port_ = 0;
};

std::string frame(const json &message) {
    std::string body = message.dump();
    std::string f(4, '\0');
    const auto n = static_cast<std::uint32_t>(body.size());
    f[0] = static_cast<char>(n >> 24);
    f[1] = static_cast<char>(n >> 16);
    f[2] = static_cast<char>(n >> 8);
    f[3] = static_cast<char>(n);
    return f + body;
}

// The agent's answer, a single frame.
json answer(const std::string &reply) {
    REQUIRE(reply.size() > 4);
    return json::parse(reply.substr(4));
}

}  // namespace

TEST_CASE("the agent runs cases for a client with the right token", "[remote]") {
    agent a({"--token", "s3cret"});
    REQUIRE(a.reachable());
    auto run = run_ipchost({"--peer", a.address(), "--token", "s3cret", "--plugin",
                            "socket.tcp,udp.inet,pipe.fifo", "--size", "1K", "--duration", "0.2",
                            "--warmup", "0", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json doc = json::parse(run.out);
    CHECK(doc.at("settings").at("peer") == a.address());
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
    agent a({"--token", "s3cret"});
    auto run = run_ipchost({"--peer", a.address(), "--token", "guess", "--plugin", "socket.tcp",
                            "--size", "1K", "--mode", "throughput", "--format", "json"});
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("refused: wrong token"));
    auto reply = answer(a.exchange(frame({{"type", "hello"}, {"protocol", 1}})));
    CHECK(reply.at("type") == "error");
    CHECK(reply.at("message") == "wrong token");
    auto version =
        answer(a.exchange(frame({{"type", "hello"}, {"protocol", 99}, {"token", "s3cret"}})));
    CHECK_THAT(version.at("message").get<std::string>(), Catch::Contains("protocol version 99"));
}

TEST_CASE("no token off loopback: the agent refuses to start", "[remote]") {
    auto run = run_ipchost({"serve", "--bind", "0.0.0.0:7999"}, {}, 10);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("without a token") && Catch::Contains("--insecure"));
}

TEST_CASE("garbage, oversized and malformed frames get an error, the agent lives on", "[remote]") {
    agent a({"--token", "s3cret"});
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
    auto run = run_ipchost({"--peer", a.address(), "--token", "s3cret", "--plugin", "socket.tcp",
                            "--size", "64", "--mode", "throughput", "--duration", "0.1"});
    CHECK(run.exit_code == 0);
}

TEST_CASE("a silent client is dropped after the idle timeout, a second one is told busy",
          "[remote]") {
    agent a({"--token", "s3cret", "--idle-timeout", "1"});
    const auto start = std::chrono::steady_clock::now();
    int silent = a.connect_raw();
    REQUIRE(silent >= 0);
    // While the silent one holds the agent, another client is turned away at once.
    auto busy = answer(a.exchange(""));
    CHECK_THAT(busy.at("message").get<std::string>(), Catch::Contains("busy"));
    char buf[4096];
    ssize_t n = recv(silent, buf, sizeof buf, 0);
    const auto waited = std::chrono::steady_clock::now() - start;
    close(silent);
    REQUIRE(n > 4);
    CHECK_THAT(std::string(buf + 4, static_cast<std::size_t>(n) - 4),
               Catch::Contains("no handshake within 1 s"));
    CHECK(waited >= std::chrono::milliseconds(900));
    CHECK(waited < std::chrono::seconds(4));
}
