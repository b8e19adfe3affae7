// Every built-in transport through the real harness: counts add up, limits are named, loss is
// counted and never hidden.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

TEST_CASE("reliable transports deliver every message in both modes", "[transports]") {
    ipcbench::test::temp_dir tmp;
    auto run = run_ipchost({"--plugin", "socket,mq,udp.unix", "--size", "64,4K", "--duration",
                            "0.2", "--warmup", "0.05", "--format", "json"},
                           {{"TMPDIR", tmp.path()}}, 120);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    auto results = json::parse(run.out).at("results");
    REQUIRE(results.size() == 6 * 2 * 2);  // 6 transports x 2 modes x 2 sizes
    REQUIRE_FALSE(results.empty());        // a loop over nothing asserts nothing
    for (const auto &r : results) {
        INFO(r.dump());
        REQUIRE(r.at("status") == "ok");
        const auto &i = r.at("integrity");
        CHECK(i.at("messages_sent").get<std::uint64_t>() > 0);
        CHECK(i.at("messages_received") == i.at("messages_sent"));
        CHECK(i.at("lost") == 0);
        CHECK(i.at("out_of_order") == 0);
        CHECK(i.at("duplicated") == 0);
        CHECK_FALSE(r.at("options").empty());
    }
    CHECK(tmp.entries().empty());  // no socket file or run directory left
}

TEST_CASE("effective settings are reported with each result", "[transports]") {
    auto run =
        run_ipchost({"--plugin", "socket.tcp,mq.sysv,mq.posix", "--size", "1K", "--mode",
                     "throughput", "--duration", "0.1", "--warmup", "0", "--format", "json"});
    REQUIRE(run.exit_code == 0);
    auto results = json::parse(run.out).at("results");
    REQUIRE(results.size() == 3);
    const auto &tcp = results.at(0).at("options");
    CHECK(tcp.at("nodelay") == "1");
    CHECK(std::stol(tcp.at("sndbuf").get<std::string>()) > 0);
    CHECK(std::stol(tcp.at("mss").get<std::string>()) > 0);
    const auto &sysv = results.at(1).at("options");
    CHECK(sysv.contains("kernel.msgmax"));
    CHECK(sysv.contains("kernel.msgmnb"));
    const auto &posix = results.at(2).at("options");
    CHECK(posix.at("msgsize") == "1024");
    CHECK(posix.contains("fs.mqueue.msgsize_max"));
    CHECK(posix.contains("fs.mqueue.msg_max"));
}

TEST_CASE("a message above a kernel limit names the limit and the fix, never clamps",
          "[transports]") {
    auto run = run_ipchost(
        {"--plugin", "mq.sysv", "--size", "1M", "--mode", "throughput", "--format", "json"});
    INFO(run.err);
    CHECK(run.exit_code == 0);  // a skipped size is not a failed run
    auto r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "skipped");
    CHECK_THAT(r.at("error").get<std::string>(),
               Catch::Contains("kernel.msgmax") && Catch::Contains("sysctl -w kernel.msgmax="));
    CHECK_FALSE(r.contains("throughput"));

    auto udp = run_ipchost(
        {"--plugin", "udp.inet", "--size", "64K", "--mode", "throughput", "--format", "json"});
    auto u = json::parse(udp.out).at("results").at(0);
    CHECK(u.at("status") == "skipped");
    CHECK_THAT(u.at("error").get<std::string>(), Catch::Contains("65507"));
}

TEST_CASE("UDP loss is counted: received plus lost equals what was asked to be sent",
          "[transports]") {
    // The anchor is --count, a number ipchost did not compute: every one of the 20000
    // datagrams is either received (once) or counted lost, whatever the loss on this machine.
    auto run = run_ipchost({"--plugin", "udp.inet", "--size", "1K", "--mode", "throughput",
                            "--count", "20000", "--warmup", "0", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    auto r = json::parse(run.out).at("results").at(0);
    const auto &i = r.at("integrity");
    const auto received = i.at("messages_received").get<std::uint64_t>();
    const auto duplicated = i.at("duplicated").get<std::uint64_t>();
    const auto lost = i.at("lost").get<std::uint64_t>();
    CHECK(i.at("messages_sent").get<std::uint64_t>() == 20000);
    CHECK(received > 0);
    CHECK(lost <= 20000);
    CHECK(received - duplicated + lost == 20000);
}

namespace {

// One throughput case per transport with these options; every message checked byte for byte.
json run_checked(const std::vector<std::string> &extra) {
    std::vector<std::string> args = {"--mode",     "throughput", "--size",   "64,4K",
                                     "--duration", "0.15",       "--warmup", "0.05",
                                     "--verify",   "--format",   "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto run = run_ipchost(args, {}, 120);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    return json::parse(run.out).at("results");
}

}  // namespace

TEST_CASE("the zero-copy and batched paths deliver every byte and say which calls ran",
          "[transports]") {
    struct path_case {
        std::vector<std::string> args;
        const char *data_path;
    };
    const path_case cases[] = {
        {{"--plugin", "shm.ring"}, "borrow/publish -> take/release"},
        {{"--plugin", "shm.ring", "--batch", "16"}, "borrow/publish -> take/release"},
        {{"--plugin", "shm.ring", "--zero-copy", "off", "--batch", "16"},
         "send_batch -> recv_batch"},
        {{"--plugin", "shm.ring", "--zero-copy", "off"}, "send -> recv"},
        {{"--plugin", "socket.unix", "--batch", "8"}, "send_batch -> recv x8 bytes"},
        {{"--plugin", "socket.seqpacket", "--batch", "8"}, "send_batch -> recv_batch"},
        {{"--plugin", "udp.unix", "--batch", "8"}, "send_batch -> recv_batch"},
        {{"--plugin", "mq.posix", "--batch", "4"}, "send x4 -> recv"},
        {{"--plugin", "pipe.fifo", "--opt", "splice=vmsplice"}, "borrow/publish -> recv"},
        {{"--plugin", "pipe.fifo", "--opt", "splice=vmsplice", "--zero-copy", "off"},
         "send -> recv"},
        {{"--plugin", "pipe.fifo"}, "send -> recv"},
    };
    for (const auto &c : cases) {
        const json results = run_checked(c.args);
        REQUIRE(results.size() == 2);
        REQUIRE_FALSE(results.empty());  // a loop over nothing asserts nothing
        for (const auto &r : results) {
            INFO(c.args.back() << " " << r.dump());
            REQUIRE(r.at("status") == "ok");
            CHECK(r.at("data_path") == c.data_path);
            const auto &i = r.at("integrity");
            CHECK(i.at("messages_received").get<std::uint64_t>() > 0);
            CHECK(i.at("messages_received") == i.at("messages_sent"));
            CHECK(i.at("lost") == 0);
            CHECK(i.at("corrupted") == 0);
            CHECK(i.at("out_of_order") == 0);
        }
    }
}

TEST_CASE("zero-copy on fails a transport without zero-copy calls, naming the way out",
          "[transports]") {
    auto run = run_ipchost({"--plugin", "socket.tcp", "--mode", "throughput", "--size", "1K",
                            "--duration", "0.1", "--zero-copy", "on", "--format", "json"});
    CHECK(run.exit_code == 1);
    const auto r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "failed");
    CHECK_THAT(r.at("error").get<std::string>(),
               Catch::Contains("socket.tcp has no zero-copy send") &&
                   Catch::Contains("--zero-copy auto or off"));
}

TEST_CASE("latency runs zero-copy on shm.ring and echoes intact pongs", "[transports]") {
    auto run =
        run_ipchost({"--plugin", "shm.ring", "--mode", "latency", "--size", "64,64K", "--duration",
                     "0.1", "--warmup", "0.02", "--verify", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json parsed = json::parse(run.out);     // the results live as long as the loop
    REQUIRE_FALSE(parsed.at("results").empty());  // a loop over nothing asserts nothing
    for (const auto &r : parsed.at("results")) {
        INFO(r.dump());
        CHECK(r.at("data_path") == "borrow/publish -> take/release");
        CHECK(r.at("latency_ns").at("samples").get<std::uint64_t>() > 0);
        CHECK(r.at("integrity").at("corrupted") == 0);
        CHECK(r.at("integrity").at("out_of_order") == 0);
    }
}
