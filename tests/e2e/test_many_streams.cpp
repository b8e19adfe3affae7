// Many streams through the real harness: the epoll engine delivers every message, the engine
// that ran is reported, a plugin without the ABI 1.2 calls runs on threads or is refused with
// the reason, and a run of thousands of streams leaves nothing behind.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/resource.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

json results_of(const ipcbench::test::process_output &run) {
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    return json::parse(run.out).at("results");
}

int open_descriptors() {
    int n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d) != nullptr) ++n;
        closedir(d);
    }
    return n;
}

// Unix sockets the kernel still has bound under `dir` (their files may be gone already).
int sockets_under(const std::string &dir) {
    std::ifstream in("/proc/net/unix");
    int n = 0;
    for (std::string line; std::getline(in, line);)
        if (line.find(dir) != std::string::npos) ++n;
    return n;
}

// True (with a warning) when the result failed only because this machine refuses io_uring.
bool uring_refused(const json &r) {
    if (r.at("status") == "ok" ||
        r.value("error", "").find("io_uring is off here") == std::string::npos)
        return false;
    WARN("io_uring is not allowed on this machine: " << r.at("error"));
    return true;
}

rlim_t hard_open_files() {
    rlimit l{};
    getrlimit(RLIMIT_NOFILE, &l);
    return l.rlim_max;
}

}  // namespace

TEST_CASE("1,000 socket.unix streams with --count deliver exactly streams x count messages",
          "[streams]") {
    ipcbench::test::temp_dir tmp;
    if (hard_open_files() < 1600) {
        WARN("RLIMIT_NOFILE's hard limit is below 1600 here: the refusal is checked instead");
        auto run = run_ipchost({"--plugin", "socket.unix", "--streams", "1000", "--count", "5",
                                "--mode", "throughput", "--format", "json"},
                               {{"TMPDIR", tmp.path()}}, 120);
        CHECK_THAT(run.out, Catch::Contains("RLIMIT_NOFILE"));
        return;
    }
    auto results = results_of(
        run_ipchost({"--plugin", "socket.unix", "--streams", "1000", "--count", "20", "--size",
                     "64", "--mode", "throughput", "--warmup", "0", "--format", "json"},
                    {{"TMPDIR", tmp.path()}}, 180));
    REQUIRE(results.size() == 1);
    const auto &r = results.at(0);
    INFO(r.dump().substr(0, 2000));
    REQUIRE(r.at("status") == "ok");
    CHECK(r.at("io") == "epoll");  // --io auto: more streams than threads
    CHECK(r.at("threads").get<int>() >= 1);
    CHECK(r.at("data_path") == "try_send -> try_recv");
    const auto &i = r.at("integrity");
    CHECK(i.at("messages_sent") == 20'000);
    CHECK(i.at("messages_received") == 20'000);
    CHECK(i.at("lost") == 0);
    CHECK(i.at("out_of_order") == 0);
    CHECK(i.at("duplicated") == 0);
    CHECK(r.at("stream_spread").at("streams") == 1000);
    const double jain = r.at("stream_spread").at("jain_fairness");
    CHECK(jain > 0.0);
    CHECK(jain <= 1.0 + 1e-9);
    CHECK(r.at("setup").at("connections") == 1000);
    CHECK(r.at("per_stream").empty());  // thousands of rows only with --per-stream
    CHECK(tmp.entries().empty());
}

TEST_CASE("the epoll engine counts each stream, both ways and in ping-pong, with --per-stream",
          "[streams]") {
    ipcbench::test::temp_dir tmp;
    // pipe.fifo is one-way: bidir and ping-pong need two endpoints (two descriptors) a stream.
    auto results = results_of(run_ipchost({"--plugin",     "pipe.fifo,socket.tcp",
                                           "--streams",    "30",
                                           "--io",         "epoll",
                                           "--threads",    "3",
                                           "--count",      "7",
                                           "--size",       "100",
                                           "--mode",       "both",
                                           "--bidir",      "--verify",
                                           "--warmup",     "0.05",
                                           "--per-stream", "--format",
                                           "json"},
                                          {{"TMPDIR", tmp.path()}}, 180));
    REQUIRE(results.size() == 2 * 3);  // 2 transports x (2 bidir halves + latency)
    for (const auto &r : results) {
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("io") == "epoll");
        CHECK(r.at("threads") == 3);
        CHECK(r.at("integrity").at("messages_received") == 30 * 7);
        CHECK(r.at("integrity").at("corrupted") == 0);
        REQUIRE(r.at("per_stream").size() == 30);
        for (const auto &s : r.at("per_stream")) CHECK(s.at("messages") == 7);
        if (r.at("mode") == "latency") CHECK(r.at("latency_ns").at("samples") == 30 * 7);
    }
    CHECK(tmp.entries().empty());
}

TEST_CASE("an unreliable transport on the epoll engine ends on the sender's count", "[streams]") {
    auto results = results_of(
        run_ipchost({"--plugin", "udp.inet", "--streams", "20", "--io", "epoll", "--count", "50",
                     "--size", "64", "--mode", "throughput", "--warmup", "0", "--format", "json"},
                    {}, 120));
    const auto &r = results.at(0);
    INFO(r.dump().substr(0, 1500));
    REQUIRE(r.at("status") == "ok");
    const auto &i = r.at("integrity");
    CHECK(i.at("messages_sent") == 1000);
    CHECK(i.at("messages_received").get<long>() + i.at("lost").get<long>() -
              i.at("duplicated").get<long>() ==
          1000);
}

TEST_CASE("a plugin without the ABI 1.2 calls runs many streams on threads or says why not",
          "[streams]") {
    // Built from the frozen 1.0 header: its table ends before the event-driven members.
    auto on_threads = results_of(run_ipchost(
        {"--plugin-dir", ABI_PLUGIN_DIR, "--plugin", "frozen", "--streams", "40", "--count", "10",
         "--size", "64", "--mode", "throughput", "--warmup", "0", "--format", "json"}));
    REQUIRE(on_threads.at(0).at("status") == "ok");
    CHECK(on_threads.at(0).at("io") == "threads");
    CHECK(on_threads.at(0).at("integrity").at("messages_received") == 400);

    auto too_many = run_ipchost({"--plugin-dir", ABI_PLUGIN_DIR, "--plugin", "frozen", "--streams",
                                 "1500", "--mode", "throughput", "--format", "json"});
    const auto refused = json::parse(too_many.out).at("results").at(0);
    CHECK(refused.at("status") == "failed");
    CHECK_THAT(refused.at("error").get<std::string>(),
               Catch::Contains("offers no event-driven calls (ABI 1.2)") &&
                   Catch::Contains("1024 streams or fewer"));

    auto asked = run_ipchost({"--plugin-dir", ABI_PLUGIN_DIR, "--plugin", "frozen", "--io", "epoll",
                              "--mode", "throughput", "--format", "json"});
    CHECK_THAT(json::parse(asked.out).at("results").at(0).at("error").get<std::string>(),
               Catch::Contains("offers no readiness calls") && Catch::Contains("--io threads"));
    auto unknown = run_ipchost({"--plugin", "pipe", "--io", "kqueue"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("--io 'kqueue': expected auto, threads, epoll"));
}

TEST_CASE("a 5,000-stream run leaves no descriptor, socket, file or process behind", "[streams]") {
    if (hard_open_files() < 6000) {
        WARN("RLIMIT_NOFILE's hard limit is below 6000 here; skipped");
        return;
    }
    ipcbench::test::temp_dir tmp;
    const int fds_before = open_descriptors();
    auto results = results_of(
        run_ipchost({"--plugin", "socket.unix", "--streams", "5000", "--count", "3", "--size", "64",
                     "--mode", "throughput", "--warmup", "0", "--format", "json"},
                    {{"TMPDIR", tmp.path()}}, 240));
    const auto &r = results.at(0);
    REQUIRE(r.at("status") == "ok");
    CHECK(r.at("integrity").at("messages_received") == 15'000);
    CHECK(r.at("setup").at("connections") == 5000);
    // Each process said what a stream cost it; the figure is there and finite.
    CHECK(r.at("receiver").at("rss_per_stream_kib").get<double>() >= 0.0);
    CHECK(tmp.entries().empty());
    CHECK(sockets_under(tmp.path()) == 0);
    CHECK(ipcbench::test::tagged_processes().empty());
    CHECK(open_descriptors() == fds_before);
}

TEST_CASE("the io_uring engine delivers every message of many TCP and Unix streams", "[streams]") {
    ipcbench::test::temp_dir tmp;
    auto run = run_ipchost(
        {"--plugin", "socket.tcp,socket.unix", "--streams", "200", "--io", "uring", "--count", "9",
         "--size", "3000", "--mode", "both", "--verify", "--warmup", "0.05", "--format", "json"},
        {{"TMPDIR", tmp.path()}}, 180);
    auto results = json::parse(run.out).at("results");
    REQUIRE(results.size() == 4);
    for (const auto &r : results) {
        INFO(r.dump().substr(0, 1500));
        if (uring_refused(r)) continue;
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("io") == "uring");
        CHECK(r.at("integrity").at("messages_received") == 200 * 9);
        CHECK(r.at("integrity").at("corrupted") == 0);
        CHECK(r.at("integrity").at("lost") == 0);
        CHECK_THAT(r.at("data_path").get<std::string>(), Catch::Contains("submit_send"));
    }
    CHECK(tmp.entries().empty());
}

TEST_CASE("the event engines send a --batch of stream messages back to back, each counted",
          "[streams]") {
    ipcbench::test::temp_dir tmp;
    // 21 is no multiple of 8: each stream's last batch is short; the warm-up sends batches too.
    for (const char *io : {"epoll", "uring"}) {
        auto run = run_ipchost({"--plugin",  "socket.tcp,socket.unix",
                                "--streams", "40",
                                "--io",      io,
                                "--threads", "2",
                                "--batch",   "8",
                                "--count",   "21",
                                "--size",    "100",
                                "--mode",    "throughput",
                                "--verify",  "--warmup",
                                "0.05",      "--per-stream",
                                "--format",  "json"},
                               {{"TMPDIR", tmp.path()}}, 180);
        INFO(run.err);
        const auto results = json::parse(run.out).at("results");
        REQUIRE(results.size() == 2);
        for (const auto &r : results) {
            INFO(r.dump().substr(0, 1500));
            if (uring_refused(r)) continue;
            REQUIRE(r.at("status") == "ok");
            CHECK(r.at("io") == io);
            CHECK(r.at("batch") == 8);
            CHECK_THAT(r.at("data_path").get<std::string>(), Catch::Contains("_send x8 bytes ->"));
            const auto &i = r.at("integrity");
            CHECK(i.at("messages_sent") == 40 * 21);
            CHECK(i.at("messages_received") == 40 * 21);
            CHECK(i.at("corrupted") == 0);
            CHECK(i.at("out_of_order") == 0);
            REQUIRE(r.at("per_stream").size() == 40);
            for (const auto &s : r.at("per_stream")) CHECK(s.at("messages") == 21);
        }
    }
    // A message transport cannot take a batch in one call: threads run it (sendmmsg), or an
    // event engine asked for by name says why not.
    auto threads = results_of(
        run_ipchost({"--plugin", "udp.unix", "--streams", "4", "--batch", "4", "--count", "10",
                     "--size", "64", "--mode", "throughput", "--warmup", "0", "--format", "json"},
                    {{"TMPDIR", tmp.path()}}));
    CHECK(threads.at(0).at("io") == "threads");
    auto refused = run_ipchost({"--plugin", "udp.unix", "--streams", "4", "--io", "epoll",
                                "--batch", "4", "--mode", "throughput", "--format", "json"},
                               {{"TMPDIR", tmp.path()}});
    CHECK_THAT(
        json::parse(refused.out).at("results").at(0).at("error").get<std::string>(),
        Catch::Contains("needs a byte-stream transport") && Catch::Contains("use --io threads"));
    CHECK(tmp.entries().empty());
}

TEST_CASE("the epoll engine counts messages its reads cut, and paced messages' send times",
          "[streams]") {
    ipcbench::test::temp_dir tmp;
    // 100,000-byte messages: nearly every read of a TCP stream ends inside one. Without
    // --verify the receiver keeps only each message's head; the count must still be exact.
    auto big = results_of(
        run_ipchost({"--plugin", "socket.tcp", "--streams", "20", "--io", "epoll", "--threads", "2",
                     "--count", "30", "--size", "100000", "--mode", "throughput", "--warmup",
                     "0.05", "--per-stream", "--format", "json"},
                    {{"TMPDIR", tmp.path()}}, 180));
    {
        const auto &r = big.at(0);
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("integrity").at("messages_received") == 20 * 30);
        CHECK(r.at("integrity").at("out_of_order") == 0);
        CHECK(r.at("integrity").at("duplicated") == 0);
        for (const auto &s : r.at("per_stream")) CHECK(s.at("messages") == 30);
    }
    // Paced: each message's send time rides in its head, read back for one-way latency.
    auto paced =
        results_of(run_ipchost({"--plugin", "socket.unix", "--streams", "50", "--io", "epoll",
                                "--rate", "200", "--duration", "0.3", "--size", "5000", "--mode",
                                "throughput", "--warmup", "0", "--format", "json"},
                               {{"TMPDIR", tmp.path()}}, 180));
    const auto &r = paced.at(0);
    INFO(r.dump().substr(0, 1500));
    REQUIRE(r.at("status") == "ok");
    const auto received = r.at("integrity").at("messages_received").get<long>();
    CHECK(received > 0);
    CHECK(r.at("latency_ns").at("samples").get<long>() == received);
    // A send time read from the wrong bytes would be 0 (a huge latency) or in the future.
    CHECK(r.at("latency_ns").at("max").get<double>() < 10e9);
    CHECK(r.at("latency_ns").at("p50").get<double>() > 0);
    CHECK(tmp.entries().empty());
}
