// The behaviours every engine implements on its own (counts and their last short batch, pacing,
// bursts, intervals, both directions, ping-pong, cut messages, CPU over the timed window),
// checked on each of --io threads, epoll and uring with the same assertions: a feature written
// again for an engine is tested there too. A machine that refuses io_uring reports the uring
// tests skipped. Every check is a count or a bound that load cannot move: a paced sender sends
// every slot of its schedule however late it runs.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "support/process_runner.hpp"
#include "support/skip.hpp"

using nlohmann::json;

namespace {

// io_uring may be off (kernel.io_uring_disabled, a seccomp filter): asked once.
bool uring_refused_here(std::string *why) {
    static const std::string reason = [] {
        auto run = ipcbench::test::run_ipchost(
            {"--plugin", "socket.unix", "--io", "uring", "--streams", "2", "--count", "1", "--size",
             "64", "--mode", "throughput", "--warmup", "0", "--format", "json"});
        const json r = json::parse(run.out).at("results").at(0);
        const std::string error = r.value("error", "");
        return error.find("io_uring is off here") != std::string::npos ? error : std::string();
    }();
    *why = reason;
    return !reason.empty();
}

// One run on engine `io` (its own --threads for the event engines), every result of it.
json run_on(const std::string &io, std::vector<std::string> args,
            std::map<std::string, std::string> env = {}) {
    args.insert(args.end(), {"--io", io, "--format", "json", "--per-stream"});
    if (io != "threads") args.insert(args.end(), {"--threads", "2"});
    ipcbench::test::temp_dir tmp;
    env["TMPDIR"] = tmp.path();
    auto run = ipcbench::test::run_ipchost(args, env, 180);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json results = json::parse(run.out).at("results");
    for (const auto &r : results) {
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("io") == io);
    }
    CHECK(tmp.entries().empty());
    return results;
}

// The partial path is forced, not hoped for: both socket buffers, as the transport read them
// back, hold less than one message, so no send and no receive can take one whole. A kernel that
// raised them past it fails the test with what it read back, rather than passing unexercised.
void require_cut(const json &r, std::uint64_t message) {
    for (const char *buffer : {"sndbuf", "rcvbuf"}) {
        const std::uint64_t bytes = std::stoull(r.at("options").at(buffer).get<std::string>());
        INFO(buffer << " read back as " << bytes << " B: a " << message
                    << " B message would not be cut, the partial path not exercised");
        REQUIRE(bytes < message);
    }
}

std::uint64_t u(const json &v) {
    return v.get<std::uint64_t>();
}

// --count 10 --batch 4: batches of 4, 4 and 2 a stream, never 12; on a byte stream and on
// ping-pong; and messages of 100,000 bytes, which every read and most sends cut.
void check_counts(const std::string &io) {
    for (const auto &r :
         run_on(io, {"--plugin", "socket.unix", "--streams", "3", "--count", "10", "--batch", "4",
                     "--size", "100", "--mode", "throughput", "--warmup", "0.05", "--verify"})) {
        CHECK(u(r.at("integrity").at("messages_sent")) == 30);
        CHECK(u(r.at("integrity").at("messages_received")) == 30);
        CHECK(u(r.at("integrity").at("corrupted")) == 0);
        REQUIRE(r.at("per_stream").size() == 3);
        for (const auto &s : r.at("per_stream")) CHECK(u(s.at("messages")) == 10);
    }
    // One message a call, small: a sender sends runs of 16 between two clock reads; a count of
    // 25 ends inside the second run.
    for (const auto &r : run_on(io, {"--plugin", "socket.unix", "--streams", "2", "--count", "25",
                                     "--size", "64", "--mode", "throughput", "--warmup", "0"})) {
        CHECK(u(r.at("integrity").at("messages_sent")) == 50);
        CHECK(u(r.at("integrity").at("messages_received")) == 50);
        for (const auto &s : r.at("per_stream")) CHECK(u(s.at("messages")) == 25);
    }
    for (const auto &r : run_on(io, {"--plugin", "socket.tcp", "--streams", "2", "--count", "7",
                                     "--size", "64", "--mode", "latency", "--warmup", "0.05"})) {
        CHECK(u(r.at("integrity").at("messages_received")) == 14);
        CHECK(u(r.at("latency_ns").at("samples")) == 14);
        for (const auto &s : r.at("per_stream")) CHECK(u(s.at("messages")) == 7);
    }
    // An 8 KiB send buffer: each 100,000-byte message goes out in many partial sends (the
    // completion engine resubmits the rest) and arrives in many reads.
    for (const auto &r : run_on(io, {"--plugin", "socket.tcp", "--streams", "2", "--count", "25",
                                     "--size", "100000", "--mode", "throughput", "--warmup", "0",
                                     "--verify", "--opt", "sndbuf=8192", "--opt", "rcvbuf=8192"})) {
        require_cut(r, 100000);
        CHECK(u(r.at("integrity").at("messages_received")) == 50);
        CHECK(u(r.at("integrity").at("corrupted")) == 0);
        CHECK(u(r.at("integrity").at("out_of_order")) == 0);
    }
    // Round trips of 100,000-byte pings over 8 KiB buffers: a receive completes with part of a
    // ping (and of a pong), which must be whole before it is echoed or judged.
    for (const auto &r : run_on(io, {"--plugin", "socket.tcp", "--streams", "2", "--count", "15",
                                     "--size", "100000", "--mode", "latency", "--warmup", "0",
                                     "--verify", "--opt", "sndbuf=8192", "--opt", "rcvbuf=8192"})) {
        require_cut(r, 100000);
        CHECK(u(r.at("latency_ns").at("samples")) == 30);
        CHECK(u(r.at("integrity").at("out_of_order")) == 0);  // mismatched pongs
        CHECK(u(r.at("integrity").at("corrupted")) == 0);
        for (const auto &s : r.at("per_stream")) CHECK(u(s.at("messages")) == 15);
    }
}

// Datagrams at the maximum (65,507 B, IPv4 UDP's largest), paced so the receive buffer is not
// simply overrun, two streams, every byte checked: each datagram that arrives is whole, none is
// corrupted, and what was lost is counted (received + lost = sent). The completion engine has no
// datagram transport: it must refuse by name, and the test says it was skipped and why.
void check_max_datagrams(const std::string &io) {
    const std::vector<std::string> args = {
        "--plugin", "udp.inet", "--streams", "2",          "--count",  "200", "--rate",  "2000",
        "--size",   "65507",    "--mode",    "throughput", "--warmup", "0",   "--verify"};
    if (io == "uring") {
        std::vector<std::string> refused = args;
        refused.insert(refused.end(), {"--io", "uring", "--format", "json"});
        auto run = ipcbench::test::run_ipchost(refused);
        const json r = json::parse(run.out).at("results").at(0);
        CHECK(r.at("status") == "failed");
        const std::string why = r.value("error", "");
        CHECK_THAT(why, Catch::Contains("udp.inet offers no completion calls"));
        IPCBENCH_SKIP("datagrams on --io uring: " << why);
    }
    for (const auto &r : run_on(io, args)) {
        const json &i = r.at("integrity");
        CHECK(u(i.at("messages_sent")) == 400);
        CHECK(u(i.at("messages_received")) + u(i.at("lost")) == 400);
        CHECK(u(i.at("messages_received")) > 0);
        CHECK(u(i.at("corrupted")) == 0);
        CHECK(u(i.at("duplicated")) == 0);
        CHECK(r.at("message_size") == 65507);
    }
}

// --verify finds one flipped byte a stream, in messages every send and read cut: the sender
// flips the last byte of message 5 (IPCBENCH_CHECK_CORRUPT_MESSAGE, what check --impl uses on a
// kit), and the receiver counts exactly those, none of the others.
void check_verify(const std::string &io) {
    for (const auto &r : run_on(io,
                                {"--plugin", "socket.tcp", "--streams", "2", "--count", "12",
                                 "--size", "100000", "--mode", "throughput", "--warmup", "0",
                                 "--verify", "--opt", "sndbuf=8192", "--opt", "rcvbuf=8192"},
                                {{"IPCBENCH_CHECK_CORRUPT_MESSAGE", "5"}})) {
        CHECK(u(r.at("integrity").at("messages_received")) == 24);
        CHECK(u(r.at("integrity").at("corrupted")) == 2);
    }
}

// --reverse: the server (the creator) sends, every message counted once, on every engine.
void check_reverse(const std::string &io) {
    const auto results =
        run_on(io, {"--plugin", "socket.tcp", "--streams", "2", "--count", "11", "--size", "3000",
                    "--mode", "throughput", "--reverse", "--warmup", "0", "--verify"});
    REQUIRE(results.size() == 1);
    const auto &r = results[0];
    CHECK(r.at("direction") == "reverse");
    CHECK(u(r.at("integrity").at("messages_sent")) == 22);
    CHECK(u(r.at("integrity").at("messages_received")) == 22);
    CHECK(u(r.at("integrity").at("corrupted")) == 0);
    for (const auto &s : r.at("per_stream")) CHECK(u(s.at("messages")) == 11);
}

// Both directions at once: each half counts its own messages.
void check_bidir(const std::string &io) {
    const auto results =
        run_on(io, {"--plugin", "socket.unix", "--streams", "2", "--count", "9", "--size", "256",
                    "--mode", "throughput", "--bidir", "--warmup", "0", "--verify"});
    REQUIRE(results.size() == 2);
    CHECK(results[0].at("direction") != results[1].at("direction"));
    for (const auto &r : results) {
        CHECK(u(r.at("integrity").at("messages_received")) == 18);
        CHECK(u(r.at("integrity").at("corrupted")) == 0);
    }
}

// Paced: the slots of the window are sent, late or not (0.5 s at 200/s: 100 a stream), and
// every arrival gives one one-way latency sample. The window still ends on time
// (host/timed/timing_rules.hpp): a sender that wakes for its last slot (495 ms, 497.5 ms for
// the second stream's offset) after the end leaves it out, which a loaded machine does, so
// a stream's count is checked to be within the last few slots of 100, never above.
void check_pacing(const std::string &io) {
    for (const auto &r : run_on(io, {"--plugin", "socket.unix", "--streams", "2", "--rate", "200",
                                     "--size", "64", "--duration", "0.5", "--warmup", "0"})) {
        const auto sent = u(r.at("integrity").at("messages_sent"));
        CHECK(sent <= 200);
        CHECK(sent >= 190);
        CHECK(u(r.at("integrity").at("messages_received")) == sent);
        CHECK(u(r.at("latency_ns").at("samples")) == sent);
        CHECK(r.at("latency_ns").at("kind") == "one_way_from_schedule");
        std::uint64_t streams_sum = 0;
        for (const auto &s : r.at("per_stream")) {
            CHECK(u(s.at("messages")) <= 100);
            CHECK(u(s.at("messages")) >= 95);
            streams_sum += u(s.at("messages"));
        }
        CHECK(streams_sum == sent);
    }
}

// --burst 10 at 5 messages/s for 2 s: one burst of 10 at the start, the next slot (2 s) past
// the window. Sent one by one instead, the ten would spread over 1.8 s.
void check_bursts(const std::string &io) {
    for (const auto &r :
         run_on(io, {"--plugin", "socket.unix", "--streams", "2", "--rate", "5", "--burst", "10",
                     "--size", "64", "--duration", "2", "--warmup", "0"})) {
        CHECK(u(r.at("integrity").at("messages_sent")) == 20);
        CHECK(u(r.at("integrity").at("messages_received")) == 20);
        CHECK(r.at("duration_s").get<double>() < 1.0);
    }
}

// --interval: reports as the run goes, which add up to the whole of it.
void check_intervals(const std::string &io) {
    for (const auto &r :
         run_on(io, {"--plugin", "socket.unix", "--streams", "2", "--rate", "400", "--size", "64",
                     "--duration", "1", "--warmup", "0", "--interval", "0.25"})) {
        const auto &intervals = r.at("intervals");
        CHECK(intervals.size() >= 3);  // a 0.25 s grid over 1 s (a stall merges two)
        std::uint64_t messages = 0, bytes = 0;
        double seconds = 0;
        for (const auto &i : intervals) {
            messages += u(i.at("messages"));
            bytes += u(i.at("bytes"));
            seconds += i.at("seconds").get<double>();
            CHECK(i.at("seconds").get<double>() > 0);
            CHECK(i.at("mb_per_sec").get<double>() ==
                  Approx(u(i.at("bytes")) / i.at("seconds").get<double>() / 1e6));
        }
        CHECK(messages == u(r.at("integrity").at("messages_received")));
        CHECK(bytes == messages * 64);
        // Published while they ran, not only at the end: at 400/s a stream, every 0.25 s line
        // but a stalled one has messages (a count published at the end fills the last only).
        std::size_t busy = 0;
        for (const auto &i : intervals) busy += u(i.at("messages")) > 0;
        CHECK(busy >= 2);
        CHECK(seconds == Approx(intervals.back().at("end_s").get<double>()).margin(1e-6));
    }
}

// CPU is counted over the timed window only: after a long warm-up of busy sending, a loop
// thread cannot have used more than the window's length, and both sides together no more than
// the kernel counted for the whole run.
void check_cpu_window(const std::string &io) {
    std::vector<std::string> args{
        "--plugin", "socket.unix", "--size", "1K",   "--mode", "throughput", "--duration",
        "0.3",      "--warmup",    "1.2",    "--io", io,       "--format",   "json"};
    if (io != "threads") args.insert(args.end(), {"--threads", "1"});
    ipcbench::test::temp_dir tmp;
    auto run = ipcbench::test::run_ipchost(args, {{"TMPDIR", tmp.path()}}, 120);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const json r = json::parse(run.out).at("results").at(0);
    INFO(r.dump().substr(0, 1500));
    REQUIRE(r.at("status") == "ok");
    const double window = r.at("duration_s").get<double>();
    double reported = 0;
    for (const char *side : {"sender", "receiver"}) {
        const auto &p = r.at(side);
        const double cpu = p.at("cpu_user_s").get<double>() + p.at("cpu_sys_s").get<double>();
        // One loop thread a side; its window ends with the end marker, a little after the
        // receiver's. The warm-up alone was four times the window.
        CHECK(cpu <= window * 1.1 + 0.02);
        CHECK(p.at("cpu_percent").get<double>() <= 115);
        reported += cpu;
    }
    CHECK(reported <= run.cpu_s);  // the kernel's count of ipchost and its workers
    CHECK(run.cpu_s > 0);
}

}  // namespace

// One test case per behaviour and engine: ctest lists which engine broke what.
#define ENGINE_CASES(name, check)                                                         \
    TEST_CASE(name " (--io threads)", "[engines]") {                                      \
        check("threads");                                                                 \
    }                                                                                     \
    TEST_CASE(name " (--io epoll)", "[engines]") {                                        \
        check("epoll");                                                                   \
    }                                                                                     \
    TEST_CASE(name " (--io uring)", "[engines]") {                                        \
        std::string why;                                                                  \
        if (uring_refused_here(&why)) IPCBENCH_SKIP("io_uring is refused here: " << why); \
        check("uring");                                                                   \
    }

ENGINE_CASES("counts are exact, their last batch cut short, cut messages reassembled", check_counts)
ENGINE_CASES("datagrams at the maximum arrive whole or are counted lost", check_max_datagrams)
ENGINE_CASES("both directions at once count their own halves", check_bidir)
ENGINE_CASES("reverse: the creating side sends and every message is counted once", check_reverse)
ENGINE_CASES("verify finds the one corrupted message of each stream", check_verify)
ENGINE_CASES("a paced sender sends the slots of its window, each arrival timed", check_pacing)
ENGINE_CASES("bursts go back to back at their slot", check_bursts)
ENGINE_CASES("interval reports add up to the run", check_intervals)
ENGINE_CASES("CPU is counted over the timed window, within the kernel's count", check_cpu_window)
