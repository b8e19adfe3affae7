// Kits: workers in Go and Python meet ipchost's native worker on the same FIFO, socket or queue
// (docs/worker-protocol.md). What a kit counts is checked against the other side, byte for byte;
// a broken kit fails only the cases that use it, with its reason.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "platform/cpu_affinity.hpp"
#include "support/json_schema.hpp"
#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

// The kits --list finds in the build tree, usable ones only.
json usable_kits() {
    const auto run = run_ipchost({"--list", "--format", "json"});
    const json listing = json::parse(run.out);  // kept: the loop below reads into it
    json kits = json::object();
    for (const auto &k : listing.at("kits"))
        if (k.at("usable").get<bool>()) kits[k.at("name").get<std::string>()] = k;
    return kits;
}

json run_json(const std::vector<std::string> &args, int *exit_code = nullptr,
              const std::map<std::string, std::string> &env = {}) {
    std::vector<std::string> all = {"-q", "--format", "json"};
    all.insert(all.end(), args.begin(), args.end());
    const auto run = run_ipchost(all, env, 170);
    INFO(run.err);
    if (exit_code) *exit_code = run.exit_code;
    return json::parse(run.out).at("results");
}

// A kit folder in `dir` whose worker is tests/kits/misbehaving_worker.py MODE, or, with a
// manifest text given, exactly that manifest.
void write_kit(const std::string &dir, const std::string &name, const std::string &mode,
               const std::string &manifest = "") {
    std::filesystem::create_directories(dir + "/" + name);
    std::ofstream out(dir + "/" + name + "/ipcbench-kit.json");
    if (!manifest.empty()) {
        out << manifest;
        return;
    }
    out << json{{"kit_manifest", 1},
                {"name", name},
                {"language", "Python"},
                {"worker",
                 {"python3", std::string(SOURCE_DIR) + "/tests/kits/misbehaving_worker.py", mode,
                  name}},
                {"runtime_version", {"python3", "--version"}},
                {"protocol", {"1.0"}},
                {"roles", {"sender", "receiver", "pinger", "ponger"}},
                {"transports", {"pipe.fifo", "socket.unix"}}}
               .dump();
}

// Every pairing of the kit and the native worker on every transport the kit offers (or on
// `only` of them), both modes: every byte checked, exact counts where the transport is reliable.
void meets_native(const std::string &name, const std::set<std::string> &only = {}) {
    const json kits = usable_kits();
    if (!kits.contains(name)) IPCBENCH_SKIP("the " << name << " kit was not built");
    for (const auto &transport : kits[name].at("transports")) {
        const std::string t = transport.get<std::string>();
        if (!only.empty() && !only.count(t)) continue;
        DYNAMIC_SECTION(name << " on " << t) {
            const bool reliable = t != "udp.inet";
            // --timeout: a case that hangs fails at its own watchdog, naming itself.
            const auto results =
                run_json({"--plugin", t, "--size", "200", "--count", "2000", "--timeout", "20",
                          "--verify", "--warmup", "0.05", "--impl", "sender=native," + name,
                          "--impl", "receiver=native," + name});
            REQUIRE(results.size() == 8);  // (throughput + latency) x 4 pairings
            for (const auto &r : results) {
                INFO(r.dump().substr(0, 600));
                REQUIRE(r.at("status") == "ok");
                const auto &i = r.at("integrity");
                CHECK(i.at("corrupted") == 0);
                CHECK(i.at("duplicated") == 0);
                if (r.at("mode") == "latency") {
                    const auto samples = r.at("latency_ns").at("samples").get<int>();
                    CHECK(samples + (reliable ? 0 : i.at("lost").get<int>()) == 2000);
                } else if (reliable) {
                    CHECK(i.at("messages_sent") == 2000);
                    CHECK(i.at("messages_received") == 2000);
                } else {
                    CHECK(i.at("messages_received") <= i.at("messages_sent"));
                }
                // The side named in the settings is the side that ran, and says so.
                CHECK(r.at("sender").at("implementation") == r.at("settings").at("sender_impl"));
                CHECK(r.at("receiver").at("implementation") ==
                      r.at("settings").at("receiver_impl"));
            }
        }
    }
}

void passes_check(const std::string &name) {
    if (!usable_kits().contains(name)) IPCBENCH_SKIP("the " << name << " kit was not built");
    const auto run = run_ipchost({"check", "--impl", name}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("FAIL") == std::string::npos);
    CHECK_THAT(run.out, Catch::Contains(" 0 failed"));
}

}  // namespace

TEST_CASE("the go kit on either side meets the native worker byte for byte", "[kits]") {
    meets_native("go");
}

TEST_CASE("the python kit on either side meets the native worker byte for byte", "[kits]") {
    meets_native("python");
}

// The JVM and Mono kits: each transport against the native worker in both directions is
// `check --impl java` / `--impl dotnet` (below); the four pairings, a kit on both sides
// included, on a FIFO (the open order) and UDP (the unreliable rules).
TEST_CASE("the java kit on either side meets the native worker byte for byte", "[kits]") {
    meets_native("java", {"pipe.fifo", "udp.inet"});
}

// go:bufio (bufio.Reader / bufio.Writer over the same file or connection) meets the native
// worker byte for byte, and does buffer: a bufio writer and reader move many small messages in
// few reads of the transport, which is why a Go program written so gets another figure.
TEST_CASE("go:bufio meets the native worker and reads many messages a read", "[kits]") {
    if (!usable_kits().contains("go:bufio")) IPCBENCH_SKIP("the go kit was not built (no go)");
    meets_native("go:bufio", {"pipe.fifo", "socket.tcp"});
    const auto results =
        run_json({"--plugin", "socket.unix", "--mode", "throughput", "--size", "64", "--count",
                  "20000", "--verify", "--warmup", "0", "--impl", "go:bufio"});
    REQUIRE(results.size() == 1);
    INFO(results[0].dump().substr(0, 1500));
    REQUIRE(results[0].at("status") == "ok");
    CHECK(results[0].at("integrity").at("messages_received") == 20000);
    CHECK(results[0].at("integrity").at("corrupted") == 0);
    CHECK(results[0].at("data_path") == "(*bufio.Writer).Write -> (*bufio.Reader).Read");
    const double reads = results[0].at("receiver").at("kit").at("underlying_reads").get<double>();
    CHECK(reads > 0);
    CHECK(reads < 20000 / 4);
}

// java:streams (java.io: DataInputStream(BufferedInputStream).readFully, DataOutputStream with a
// flush a message) meets the native worker byte for byte on a FIFO and a Unix socket, and its
// reader does buffer: small messages arrive many to a read of the transport.
TEST_CASE("java:streams meets the native worker and reads many messages a read", "[kits]") {
    if (!usable_kits().contains("java:streams"))
        IPCBENCH_SKIP("the java kit was not built (no JDK)");
    meets_native("java:streams", {"pipe.fifo", "socket.unix"});
    const auto results =
        run_json({"--plugin", "socket.tcp", "--mode", "throughput", "--size", "64", "--count",
                  "20000", "--verify", "--warmup", "0", "--impl", "receiver=java:streams"});
    REQUIRE(results.size() == 1);
    INFO(results[0].dump().substr(0, 1500));
    REQUIRE(results[0].at("status") == "ok");
    CHECK(results[0].at("integrity").at("messages_received") == 20000);
    CHECK(results[0].at("integrity").at("corrupted") == 0);
    CHECK(results[0].at("data_path") == "send -> DataInputStream.readFully");
    const double reads = results[0].at("receiver").at("kit").at("underlying_reads").get<double>();
    CHECK(reads > 0);
    // Fewer reads than messages: some read carried several, which an unbuffered reader's never
    // do (it asks for 64 B). How many a read depends on how far ahead the native writer is,
    // which load changes (3.9 a read in a TSan run), so no more is asked.
    CHECK(reads < 20000);
}

// python:buffered (io.BufferedReader: open(path, "rb"), socket.makefile("rb")) meets the native
// worker byte for byte, and its reader does buffer: on a FIFO, whose reads /proc/self/io counts,
// 20,000 small messages take far fewer read(2) calls than messages.
TEST_CASE("python:buffered meets the native worker and reads many messages a read", "[kits]") {
    if (!usable_kits().contains("python:buffered")) IPCBENCH_SKIP("the python kit is not usable");
    meets_native("python:buffered", {"pipe.fifo", "socket.tcp"});
    const auto results =
        run_json({"--plugin", "pipe.fifo", "--mode", "throughput", "--size", "64", "--count",
                  "20000", "--verify", "--warmup", "0", "--impl", "receiver=python:buffered"});
    REQUIRE(results.size() == 1);
    INFO(results[0].dump().substr(0, 1500));
    REQUIRE(results[0].at("status") == "ok");
    CHECK(results[0].at("integrity").at("messages_received") == 20000);
    CHECK(results[0].at("integrity").at("corrupted") == 0);
    CHECK(results[0].at("data_path") == "send -> BufferedReader.readinto");
    const double reads = results[0].at("receiver").at("kit").at("read_syscalls").get<double>();
    CHECK(reads > 0);
    CHECK(reads < 20000);  // some read carried several messages: as java:streams above
}

// python:asyncio (asyncio streams: readexactly, write + drain) meets the native worker both ways
// and modes, and runs every stream and both halves of --bidir as coroutines of one event loop:
// each half counts every message, and the path names the asyncio calls.
TEST_CASE("python:asyncio meets the native worker, its streams coroutines of one loop", "[kits]") {
    if (!usable_kits().contains("python:asyncio")) IPCBENCH_SKIP("the python kit is not usable");
    meets_native("python:asyncio", {"socket.tcp", "socket.unix"});
    const auto results = run_json({"--plugin", "socket.unix", "--mode", "throughput", "--size",
                                   "1K", "--count", "3000", "--streams", "4", "--bidir", "--verify",
                                   "--warmup", "0.05", "--impl", "python:asyncio"});
    REQUIRE(results.size() == 2);
    for (const auto &r : results) {
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("integrity").at("messages_received") == 12000);
        CHECK(r.at("integrity").at("corrupted") == 0);
        CHECK(r.at("data_path") == "StreamWriter.write+drain -> StreamReader.readexactly");
    }
}

// What a JVM side adds: its runtime named, the collectors' and the JIT's work during the run
// (MXBeans), every JVM thread where --affinity put it (the kit's JNI library), the queue it
// reached over JNI counted exactly.
TEST_CASE(
    "a java side names its JVM, reports its collectors and JIT, and runs on the CPU it was given",
    "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("java")) IPCBENCH_SKIP("the java kit was not built (no JDK)");
    CHECK(kits["java"]["runtime"].get<std::string>().rfind("OpenJDK 1", 0) == 0);
    CHECK(kits["java"]["transports"].size() == 6);
    const auto results =
        run_json({"--plugin", "mq.sysv", "--mode", "throughput", "--size", "1024", "--count",
                  "20000", "--verify", "--impl", "receiver=java", "--affinity", "0,1"});
    REQUIRE(results.size() == 1);
    INFO(results[0].dump().substr(0, 1500));
    REQUIRE(results[0].at("status") == "ok");
    CHECK(results[0].at("integrity").at("messages_received") == 20000);
    CHECK(results[0].at("integrity").at("corrupted") == 0);
    const auto &receiver = results[0].at("receiver");
    CHECK(receiver.at("implementation") == "java");
    CHECK(receiver.at("runtime").get<std::string>().rfind("OpenJDK 1", 0) == 0);
    CHECK(receiver.at("cpus") == json::array({1}));
    const auto &kit = receiver.at("kit");
    CHECK(kit.contains("gc_collections"));
    CHECK(kit.contains("gc_pause_ns"));
    // 20,000 messages through a fresh JVM: the JIT compiled the receive loop during the run.
    CHECK(kit.at("jit_compile_ns").get<double>() > 0);
    // It started on its CPU, so the JVM sized itself for one processor.
    CHECK(kit.at("processors") == 1);
}

// --affinity starts a kit's process on its CPU (as taskset would), not only pins it later: the
// Go runtime then runs with one P, as a Go program started under taskset does; unpinned it has
// every CPU of the machine.
TEST_CASE("a kit side started with --affinity has its runtime sized for one CPU", "[kits]") {
    if (!usable_kits().contains("go")) IPCBENCH_SKIP("the go kit was not built (no go)");
    const unsigned cpus = std::thread::hardware_concurrency();
    const std::string affinity = cpus > 1 ? "0,1" : "0,0";
    const auto pinned = run_json({"--plugin", "socket.unix", "--mode", "latency", "--count", "200",
                                  "--impl", "go", "--affinity", affinity});
    REQUIRE(pinned.size() == 1);
    INFO(pinned[0].dump().substr(0, 1500));
    REQUIRE(pinned[0].at("status") == "ok");
    for (const char *side : {"sender", "receiver"})
        CHECK(pinned[0].at(side).at("kit").at("gomaxprocs") == 1);
    CHECK(pinned[0].at("sender").at("cpus") == json::array({0}));
    const auto free = run_json(
        {"--plugin", "socket.unix", "--mode", "latency", "--count", "200", "--impl", "go"});
    REQUIRE(free.size() == 1);
    CHECK(free[0].at("sender").at("kit").at("gomaxprocs") == cpus);
}

// The C# kits, one per runtime: dotnet (.NET on CoreCLR, where the SDK is installed) and mono
// (Debian's Mono). Each test runs on each runtime built here and names the one it skipped.
const char *const csharp_kits[] = {"dotnet", "mono"};

TEST_CASE("the C# kits on either side meet the native worker byte for byte", "[kits]") {
    for (const char *k : csharp_kits) meets_native(k, {"pipe.fifo", "udp.inet"});
}

// CoreCLR makes debugger pipes (clr-debug-pipe-PID-in/out) and a diagnostic socket for every
// process in TMPDIR and removes them only on a managed exit; a worker ends with _exit or is
// killed. The worker runs without them: a run leaves nothing of the kit's in its TMPDIR.
TEST_CASE("a CoreCLR worker leaves no debugger pipe or diagnostic socket behind", "[kits]") {
    if (!usable_kits().contains("dotnet"))
        IPCBENCH_SKIP("the dotnet kit was not built (no .NET SDK)");
    ipcbench::test::temp_dir tmp;
    const auto results =
        run_json({"--plugin", "socket.tcp", "--size", "1K", "--count", "1000", "--impl", "dotnet"},
                 nullptr, {{"TMPDIR", tmp.path()}});
    REQUIRE(results.size() == 2);
    for (const auto &r : results) CHECK(r.at("status") == "ok");
    for (const auto &name : tmp.entries()) {
        INFO(name);
        CHECK(name.rfind("clr-debug-pipe-", 0) != 0);
        CHECK(name.rfind("dotnet-diagnostic-", 0) != 0);
    }
}

// Every API of a C# kit (KIT:API, from its manifest's "apis") takes both sides, counted exactly.
TEST_CASE("each API of the C# kits meets the native worker byte for byte", "[kits]") {
    const json kits = usable_kits();
    for (const char *k : csharp_kits) {
        if (!kits.contains(k)) {
            WARN("the " << k << " kit was not built: its APIs are not tested here");
            continue;
        }
        for (const char *api : {"sync", "apm", "task"}) {
            const std::string name = std::string(k) + ":" + api;
            if (std::string(k) == "mono" && std::string(api) == "task") {
                CHECK_FALSE(kits.contains(name));  // Memory<byte> and ValueTask: .NET only
                continue;
            }
            CHECK(kits.contains(name));
            meets_native(name, {"socket.tcp"});
        }
    }
}

// S1's receive path on CoreCLR (--api task on udp.inet): buffers on the pinned object heap and
// ReceiveFromAsync(Memory, SocketFlags, SocketAddress) awaited in a loop; it meets the native
// worker both ways. An awaited loop runs on the runtime's threads, so the CPU the kit reports
// is the process's: close to what ipchost measures from outside, not one thread's share of it
// (an awaited receive loop reported 0-2 % of a process at 97 %).
TEST_CASE("dotnet:task on udp.inet is S1's receive path, its CPU the process's", "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("dotnet:task")) IPCBENCH_SKIP("the dotnet kit was not built (no .NET SDK)");
    meets_native("dotnet:task", {"udp.inet"});
    const struct {
        const char *transport, *size, *recv_call;
    } cases[] = {
        {"udp.inet", "1200", "Socket.ReceiveFromAsync(Memory, SocketAddress)"},
        {"socket.tcp", "64K", "Socket.ReceiveAsync(Memory)"},
    };
    for (const auto &c : cases) {
        const auto results =
            // A second of traffic: the loops' span is most of each process's life, so the CPU
            // measured from outside (over the whole process) is comparable.
            run_json({"--plugin", c.transport, "--mode", "throughput", "--size", c.size,
                      "--duration", "1", "--warmup", "0.05", "--impl", "dotnet:task"});
        REQUIRE(results.size() == 1);
        const auto &r = results[0];
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("integrity").at("messages_received").get<long>() > 0);
        const std::string path = r.at("data_path").get<std::string>();
        CHECK(path.size() > std::string(c.recv_call).size());
        CHECK(path.substr(path.size() - std::string(c.recv_call).size()) == c.recv_call);
        for (const char *side : {"sender", "receiver"}) {
            const auto &p = r.at(side);
            CHECK(p.at("cpu_percent").get<double>() >=
                  0.5 * p.at("outside_cpu_percent").get<double>());
        }
    }
}

// An asynchronous API's streams run as its programs run many sockets (S1's claim, --streams
// 1000 on CoreCLR's socket engine): each stream's awaited loop a task of the runtime's pool, not
// a thread of its own. Every stream counts every message; the process never had a thread a
// stream.
TEST_CASE("dotnet:task runs many streams on the runtime's pool, every message counted", "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("dotnet:task")) IPCBENCH_SKIP("the dotnet kit was not built (no .NET SDK)");
    // A duration, not a count: every stream's loop runs the whole 0.5 s, so a thread a stream
    // would all be alive together; a reliable stream delivers exactly what it sent.
    auto run = [](const std::string &impl) {
        const auto results = run_json({"--plugin", "socket.tcp", "--mode", "throughput", "--size",
                                       "1K", "--duration", "0.5", "--streams", "100", "--warmup",
                                       "0.05", "--verify", "--impl", impl});
        REQUIRE(results.size() == 1);
        INFO(results[0].dump().substr(0, 1500));
        REQUIRE(results[0].at("status") == "ok");
        const auto &i = results[0].at("integrity");
        CHECK(i.at("messages_received") == i.at("messages_sent"));
        CHECK(i.at("corrupted") == 0);
        CHECK(i.at("messages_received").get<long>() >= 100);
        return results[0].at("receiver").at("kit").at("peak_threads").get<int>();
    };
    // A thread a stream would be 100 and more (the runtime's own besides); the pool is a few.
    CHECK(run("dotnet:task") < 40);
}

// System.IO.Pipes is a Unix stream socket on Linux: a PipeStream side meets the native
// socket.unix, both sides of it count every message, and the path names the calls that ran:
// the synchronous ones, Begin/End (awaited from their callbacks) and ReadAsync/WriteAsync.
TEST_CASE("the C# PipeStream APIs meet socket.unix and name the calls that ran", "[kits]") {
    const json kits = usable_kits();
    const struct {
        const char *api, *path;
    } apis[] = {
        {"pipestream", "PipeStream.Write -> PipeStream.Read"},
        {"pipestream-apm", "PipeStream.BeginWrite -> PipeStream.BeginRead"},
        {"pipestream-task",
         "PipeStream.WriteAsync(ReadOnlyMemory) -> PipeStream.ReadAsync(Memory)"},
    };
    for (const char *k : csharp_kits) {
        for (const auto &a : apis) {
            const std::string name = std::string(k) + ":" + a.api;
            if (!kits.contains(name)) {
                WARN(name << " is not built here (mono has no pipestream-task)");
                continue;
            }
            // 300 KiB messages: more than a socket buffer holds, so sends and reads are cut.
            const auto results =
                run_json({"--plugin", "socket.unix", "--mode", "throughput", "--size", "300K",
                          "--count", "300", "--warmup", "0.05", "--verify", "--impl",
                          "sender=native," + name, "--impl", "receiver=native," + name});
            REQUIRE(results.size() == 4);
            for (const auto &r : results) {
                INFO(r.dump().substr(0, 1500));
                REQUIRE(r.at("status") == "ok");
                CHECK(r.at("integrity").at("messages_received") == 300);
                CHECK(r.at("integrity").at("corrupted") == 0);
                const std::string path = r.at("data_path").get<std::string>();
                const std::string send_call =
                    std::string(a.path).substr(0, std::string(a.path).find(" -> "));
                const std::string recv_call =
                    std::string(a.path).substr(std::string(a.path).find(" -> ") + 4);
                if (r.at("settings").at("sender_impl") == name)
                    CHECK(path.rfind(send_call + " ->", 0) == 0);
                if (r.at("settings").at("receiver_impl") == name)
                    CHECK(path.size() >= recv_call.size());
                if (r.at("settings").at("receiver_impl") == name)
                    CHECK(path.compare(path.size() - recv_call.size(), recv_call.size(),
                                       recv_call) == 0);
            }
        }
    }
}

// socket.unix's buffer options reach the socket under a PipeStream (a .NET program has no
// property for them): read back from it on both sides, kit to kit. (A bad value never reaches
// a kit: ipchost checks --opt against its own plugin first.)
TEST_CASE("the C# PipeStream APIs apply sndbuf and rcvbuf to the pipe's socket", "[kits]") {
    const json kits = usable_kits();
    for (const char *k : csharp_kits) {
        const std::string name = std::string(k) + ":pipestream";
        if (!kits.contains(name)) {
            WARN(name << " is not built here");
            continue;
        }
        const auto results =
            run_json({"--plugin", "socket.unix", "--mode", "throughput", "--size", "1K", "--count",
                      "500", "--warmup", "0", "--opt", "sndbuf=300000", "--opt", "rcvbuf=400000",
                      "--impl", "sender=" + name, "--impl", "receiver=" + name});
        REQUIRE(results.size() == 1);
        const json &r = results.front();
        INFO(r.dump().substr(0, 1500));
        REQUIRE(r.at("status") == "ok");
        CHECK(r.at("integrity").at("messages_received") == 500);
        // The kernel doubles what setsockopt asks; the default is 212992 here.
        CHECK(std::stol(r.at("options").at("sndbuf").get<std::string>()) >= 300000);
        CHECK(std::stol(r.at("options").at("rcvbuf").get<std::string>()) >= 400000);
    }
}

// What a C# side adds: its runtime named with its version (Mono, or .NET on CoreCLR), the
// collections per generation, every thread where --affinity put it, the async socket calls
// it made named in its path.
TEST_CASE(
    "a C# side names its runtime, counts collections per generation and runs where it "
    "was put",
    "[kits]") {
    const json kits = usable_kits();
    for (const char *k : csharp_kits) {
        if (!kits.contains(k)) {
            WARN("the " << k << " kit was not built: not tested here");
            continue;
        }
        const bool mono = std::string(k) == "mono";
        const std::string runtime = kits[k]["runtime"].get<std::string>();
        INFO(runtime);
        if (mono)
            CHECK(runtime.rfind("Mono 6.", 0) == 0);
        else
            CHECK(
                (runtime.rfind(".NET ", 0) == 0 && runtime.find("(CoreCLR)") != std::string::npos));
        const auto results = run_json({"--plugin", "socket.tcp", "--mode", "throughput", "--size",
                                       "1024", "--count", "20000", "--verify", "--impl",
                                       std::string("receiver=") + k, "--affinity", "0,1"});
        REQUIRE(results.size() == 1);
        INFO(results[0].dump().substr(0, 1500));
        REQUIRE(results[0].at("status") == "ok");
        CHECK(results[0].at("integrity").at("messages_received") == 20000);
        CHECK(results[0].at("integrity").at("corrupted") == 0);
        const auto &receiver = results[0].at("receiver");
        CHECK(receiver.at("implementation") == k);
        CHECK(receiver.at("runtime") == runtime);
        CHECK(results[0]
                  .at("data_path")
                  .get<std::string>()
                  .find("-> Socket.ReceiveAsync(SocketAsyncEventArgs)") != std::string::npos);
        CHECK(receiver.at("cpus") == json::array({1}));
        const auto &kit = receiver.at("kit");
        // Generation 0 is counted with every collection of an older generation.
        REQUIRE(kit.contains("gc_gen0_collections"));
        REQUIRE(kit.contains("gc_gen1_collections"));
        CHECK(kit.at("gc_gen0_collections").get<double>() >=
              kit.at("gc_gen1_collections").get<double>());
        CHECK(kit.at("gc_collections") == kit.at("gc_gen0_collections"));
    }
}

// A kit's manifest declares the warm-up its runtime needs: a case with it warms up at least
// that long unless --warmup is given, and the result says what it was.
TEST_CASE("a kit's declared warm-up is the case's least, unless --warmup is given", "[kits]") {
    const json kits = usable_kits();
    std::string kit;
    for (const auto &[name, k] : kits.items())
        if (k.at("warmup_s").get<double>() > 0.2 && k.at("api").is_null()) kit = name;
    if (kit.empty()) IPCBENCH_SKIP("no kit built here declares a warm-up");
    const double declared = kits[kit].at("warmup_s").get<double>();
    INFO(kit);
    const auto defaulted = run_json({"--plugin", "socket.tcp", "--mode", "throughput", "--size",
                                     "64", "--count", "100", "--impl", "receiver=" + kit});
    REQUIRE(defaulted.size() == 1);
    REQUIRE(defaulted[0].at("status") == "ok");
    CHECK(defaulted[0].at("settings").at("warmup_s").get<double>() == declared);
    // The warm-up ran: the receiver saw untimed messages before the 100 timed ones.
    CHECK(defaulted[0].at("integrity").at("messages_received") == 100);
    const auto given =
        run_json({"--plugin", "socket.tcp", "--mode", "throughput", "--size", "64", "--count",
                  "100", "--warmup", "0.05", "--impl", "receiver=" + kit});
    REQUIRE(given.size() == 1);
    CHECK(given[0].at("settings").at("warmup_s").get<double>() == 0.05);
    const auto native = run_json(
        {"--plugin", "socket.tcp", "--mode", "throughput", "--size", "64", "--count", "100"});
    REQUIRE(native.size() == 1);
    CHECK(native[0].at("settings").at("warmup_s").get<double>() == 0.2);
}

// Kits, no native side: each pairing of java and C# (the JVM and .NET senders, the JVM and
// Mono receivers) counts every message.
TEST_CASE("the java and C# kits meet each other byte for byte", "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("java") || !kits.contains("dotnet") || !kits.contains("mono"))
        IPCBENCH_SKIP("the java, the dotnet or the mono kit was not built");
    for (const char *t : {"socket.tcp", "mq.posix"}) {
        DYNAMIC_SECTION(t) {
            const auto results = run_json({"--plugin", t, "--size", "300", "--count", "2000",
                                           "--timeout", "30", "--verify", "--impl",
                                           "sender=java,dotnet", "--impl", "receiver=java,mono"});
            REQUIRE(results.size() == 8);
            std::set<std::string> pairs;
            for (const auto &r : results) {
                INFO(r.dump().substr(0, 600));
                REQUIRE(r.at("status") == "ok");
                CHECK(r.at("integrity").at("corrupted") == 0);
                if (r.at("mode") == "latency")
                    CHECK(r.at("latency_ns").at("samples") == 2000);
                else
                    CHECK(r.at("integrity").at("messages_received") == 2000);
                pairs.insert(r.at("sender").at("implementation").get<std::string>() + ">" +
                             r.at("receiver").at("implementation").get<std::string>());
            }
            CHECK(pairs ==
                  std::set<std::string>{"java>java", "java>mono", "dotnet>java", "dotnet>mono"});
        }
    }
}

TEST_CASE("ipchost --list finds the go and python kits with their runtimes, roles and transports",
          "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("python")) IPCBENCH_SKIP("the python kit was not built (no python3)");
    CHECK(kits["python"]["runtime"].get<std::string>().rfind("CPython 3.", 0) == 0);
    CHECK(kits["python"]["roles"].size() == 4);
    CHECK(kits["python"]["transports"].size() == 4);
    if (!kits.contains("go")) IPCBENCH_SKIP("the go kit was not built (no go)");
    CHECK(kits["go"]["runtime"].get<std::string>().rfind("go1.", 0) == 0);
    CHECK(kits["go"]["transports"].size() == 6);
    // The table too, beside the transports.
    const auto table = run_ipchost({"--list"});
    CHECK(table.out.find("\ngo ") != std::string::npos);
    CHECK(table.out.find("\npython ") != std::string::npos);
}

// The queue's bytes a kit reports are the kernel's msg_qbytes, read back after an IPC_STAT, and
// --opt queue_bytes sets them (the C# kits wrote and read msg_qnum, 8 bytes before it: they
// reported 0 and left the queue at the default).
TEST_CASE("a kit's mq.sysv queue_bytes is the queue's, set and reported", "[kits]") {
    const json kits = usable_kits();
    std::ifstream in("/proc/sys/kernel/msgmnb");
    long msgmnb = 0;
    in >> msgmnb;
    REQUIRE(msgmnb >= 8192);
    for (const char *k : {"go", "java", "dotnet", "mono"}) {
        if (!kits.contains(k)) {
            WARN("the " << k << " kit was not built: its mq.sysv settings are not tested here");
            continue;
        }
        for (const long asked : {0L, 8192L}) {
            INFO(k << " queue_bytes=" << asked);
            std::vector<std::string> args = {"--plugin", "mq.sysv", "--mode",   "throughput",
                                             "--size",   "1K",      "--count",  "2000",
                                             "--impl",   k,         "--warmup", "0.05"};
            if (asked) args.insert(args.end(), {"--opt", "queue_bytes=" + std::to_string(asked)});
            const auto results = run_json(args);
            REQUIRE(results.size() == 1);
            INFO(results[0].dump().substr(0, 800));
            REQUIRE(results[0].at("status") == "ok");
            CHECK(results[0].at("integrity").at("messages_received") == 2000);
            CHECK(results[0].at("options").at("queue_bytes") ==
                  std::to_string(asked ? asked : msgmnb));
        }
    }
}

TEST_CASE("each kit side is measured from outside, and a kit's runtime figures come along",
          "[kits]") {
    const json kits = usable_kits();
    if (!kits.contains("go")) IPCBENCH_SKIP("the go kit was not built (no go)");
    const auto results = run_json({"--plugin", "pipe.fifo", "--mode", "throughput", "--size", "64",
                                   "--count", "200000", "--impl", "receiver=go"});
    REQUIRE(results.size() == 1);
    const auto &receiver = results[0].at("receiver");
    CHECK(receiver.at("runtime").get<std::string>().rfind("go1.", 0) == 0);
    // The kernel's view of each process (every thread, run to result) holds at least what its
    // loops reported for the timed window, less /proc's 10 ms ticks at both ends; a share of a
    // core, not a speed: it holds however busy the machine is.
    const double tick_points = 2 * 0.01 / results[0].at("duration_s").get<double>() * 100;
    for (const char *side : {"receiver", "sender"}) {  // a go kit, then the native worker
        INFO(side << ": " << results[0].at(side).dump());
        const double own = results[0].at(side).at("cpu_percent").get<double>();
        const double outside = results[0].at(side).at("outside_cpu_percent").get<double>();
        CHECK(own > 0);
        CHECK(outside > 0);
        CHECK(outside >= 0.5 * own - tick_points);
        // The same in seconds: what check --impl holds a kit's own CPU seconds to.
        const json &p = results[0].at(side);
        const double own_s = p.at("cpu_user_s").get<double>() + p.at("cpu_sys_s").get<double>();
        CHECK(p.at("outside_cpu_s").get<double>() > 0);
        CHECK(p.at("outside_cpu_s").get<double>() >= 0.5 * own_s - 0.02);
    }
    CHECK(receiver.at("outside_max_rss_kib").get<long>() > 500);
    CHECK(receiver.at("kit").contains("gc_cycles"));
}

TEST_CASE("a broken kit fails its own cases with the reason, and the others still run", "[kits]") {
    ipcbench::test::temp_dir dir;
    struct broken {
        const char *name, *mode;
        const char *expected;  // in the failed case's error, or in --list's problem
    };
    const broken kits[] = {
        {"crasher", "crash-at-hello", "process died (exit code 3)"},
        {"hanger", "hang", "did not answer 'hello' in time"},
        {"future", "wrong-version", "speaks worker protocol 2.0; this ipchost speaks 1.0"},
        {"impostor", "wrong-name", "says it is 'native' in its hello"},
    };
    for (const auto &k : kits) write_kit(dir.path(), k.name, k.mode);
    write_kit(dir.path(), "noruntime", "",
              R"({"kit_manifest": 1, "name": "noruntime", "language": "Nothing",
                  "worker": ["no-such-runtime-ipcbench"], "runtime_version": ["no-such-runtime-ipcbench"],
                  "protocol": ["1.0"], "roles": ["receiver"], "transports": ["pipe.fifo"]})");
    write_kit(dir.path(), "badfield", "",
              R"({"kit_manifest": 1, "name": "badfield", "language": "Python",
                  "worker": "python3 worker.py", "runtime_version": ["python3", "--version"],
                  "protocol": ["1.0"], "roles": ["receiver"], "transports": ["pipe.fifo"]})");

    const auto list = json::parse(
        run_ipchost({"--list", "--format", "json", "--kit-dir", dir.path()}).out)["kits"];
    std::map<std::string, json> by_name;
    for (const auto &k : list) by_name[k["name"].get<std::string>()] = k;
    CHECK(by_name["noruntime"]["problem"].get<std::string>().find(
              "'no-such-runtime-ipcbench' is not on PATH") != std::string::npos);
    CHECK(by_name["badfield"]["problem"].get<std::string>().find("'worker'") != std::string::npos);
    CHECK(by_name["crasher"]["usable"] == true);

    for (const auto &k : kits) {
        DYNAMIC_SECTION(k.mode) {
            int code = 0;
            const auto results =
                run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                          "--size", "64", "--count", "1000", "--timeout", "15", "--impl",
                          std::string("receiver=native,") + k.name},
                         &code);
            REQUIRE(results.size() == 2);
            CHECK(results[0]["status"] == "ok");
            CHECK(results[0]["integrity"]["messages_received"] == 1000);
            CHECK(results[1]["status"] == "failed");
            CHECK_THAT(results[1]["error"].get<std::string>(), Catch::Contains(k.expected));
            CHECK(code == 1);
        }
    }
    SECTION("a kit that cannot run fails with the reason --list gives") {
        const auto results =
            run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                      "--size", "64", "--count", "100", "--impl", "receiver=native,noruntime"});
        REQUIRE(results.size() == 2);
        CHECK(results[0]["status"] == "ok");
        CHECK_THAT(results[1]["error"].get<std::string>(),
                   Catch::Contains("its runtime is missing"));
    }
    SECTION("an unknown kit name is a usage error naming the folders searched") {
        const auto run =
            run_ipchost({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--impl", "nosuch"});
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains("no kit of that name in " + dir.path()));
    }
    CHECK(ipcbench::test::tagged_processes().empty());
}

TEST_CASE("a kit that says it is still opening its endpoints is waited for, a silent one is not",
          "[kits]") {
    // 12 endpoints at 1.1 s each: 13 s, past the deadline for opened (10 s + 5 ms each).
    ipcbench::test::temp_dir dir;
    write_kit(dir.path(), "slowkit", "slow-setup");
    write_kit(dir.path(), "silentkit", "slow-silent");
    for (const char *kit : {"slowkit", "silentkit"}) {
        DYNAMIC_SECTION(kit) {
            const auto start = std::chrono::steady_clock::now();
            const auto results =
                run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                          "--size", "64", "--count", "100", "--streams", "12", "--impl",
                          std::string("receiver=") + kit});
            const double took =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            REQUIRE(results.size() == 1);
            INFO(results[0].dump() << "\ntook " << took << " s");
            if (std::string(kit) == "slowkit") {
                CHECK(results[0]["status"] == "ok");
                CHECK(results[0]["integrity"]["messages_received"] == 12 * 100);
                CHECK(took > 13);  // it did take longer than the deadline it used to have
            } else {
                CHECK(results[0]["status"] == "failed");
                CHECK_THAT(results[0]["error"].get<std::string>(),
                           Catch::Contains("did not answer 'opened' in time"));
            }
        }
    }
    CHECK(ipcbench::test::tagged_processes().empty());
}

// A third party's kit with APIs: each is KIT:API, started with --api API on the API's own
// transports; a manifest whose APIs or warm-up are malformed is refused with the field named.
TEST_CASE("a kit's APIs run as KIT:API on their transports, and bad ones are named", "[kits]") {
    ipcbench::test::temp_dir dir;
    const std::string worker = std::string(SOURCE_DIR) + "/tests/kits/misbehaving_worker.py";
    auto manifest = [&](const std::string &name, const json &apis, double warmup) {
        return json{{"kit_manifest", 1},
                    {"name", name},
                    {"language", "Python"},
                    {"worker", {"python3", worker, "good", name}},
                    {"runtime_version", {"python3", "--version"}},
                    {"protocol", {"1.0"}},
                    {"roles", {"sender", "receiver", "pinger", "ponger"}},
                    {"transports", {"pipe.fifo", "socket.unix"}},
                    {"apis", apis},
                    {"warmup_s", warmup}}
            .dump();
    };
    write_kit(dir.path(), "third", "",
              manifest("third", json::array({{{"name", "fast"}, {"transports", {"socket.unix"}}}}),
                       0.25));
    write_kit(dir.path(), "twice", "",
              manifest("twice",
                       json::array({{{"name", "a"}, {"transports", {"pipe.fifo"}}},
                                    {{"name", "a"}, {"transports", {"pipe.fifo"}}}}),
                       0));
    write_kit(
        dir.path(), "badapi", "",
        manifest("badapi", json::array({{{"name", "Fast!"}, {"transports", {"pipe.fifo"}}}}), 0));
    write_kit(dir.path(), "slowjit", "", manifest("slowjit", json::array(), 11));
    const auto list = json::parse(
        run_ipchost({"--list", "--format", "json", "--kit-dir", dir.path()}).out)["kits"];
    std::map<std::string, json> by_name;
    for (const auto &k : list) by_name[k["name"].get<std::string>()] = k;
    REQUIRE(by_name.count("third:fast"));
    CHECK(by_name["third:fast"]["usable"] == true);
    CHECK(by_name["third:fast"]["api"] == "fast");
    CHECK(by_name["third:fast"]["transports"] == json::array({"socket.unix"}));
    CHECK_THAT(by_name["twice"]["problem"].get<std::string>(),
               Catch::Contains("the API 'a' is listed twice"));
    CHECK_THAT(by_name["badapi"]["problem"].get<std::string>(),
               Catch::Contains("apis[0]: name 'Fast!'"));
    CHECK_THAT(by_name["slowjit"]["problem"].get<std::string>(), Catch::Contains("warmup_s"));
    CHECK(by_name.count("twice:a") == 0);

    const auto results =
        run_json({"--kit-dir", dir.path(), "--plugin", "socket.unix,pipe.fifo", "--mode",
                  "throughput", "--size", "64", "--count", "500", "--impl", "receiver=third:fast"});
    REQUIRE(results.size() == 2);
    for (const auto &r : results) {
        INFO(r.dump().substr(0, 800));
        if (r.at("transport") == "socket.unix") {
            REQUIRE(r.at("status") == "ok");
            CHECK(r.at("integrity").at("messages_received") == 500);
            // The worker named itself from the --api it was given.
            CHECK(r.at("receiver").at("implementation") == "third:fast");
            CHECK(r.at("settings").at("warmup_s") == 0.25);
        } else {
            CHECK(r.at("status") == "skipped");  // the API does not list pipe.fifo
            CHECK_THAT(r.at("error").get<std::string>(),
                       Catch::Contains("kit 'third:fast' does not implement pipe.fifo"));
        }
    }
}

TEST_CASE("check --impl catches a kit that miscounts or ignores the version, by name", "[kits]") {
    ipcbench::test::temp_dir dir;
    write_kit(dir.path(), "liar", "miscount");
    write_kit(dir.path(), "lax", "ignore-version");
    auto run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "liar", "--plugin", "pipe.fifo"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL pipe.fifo          send 100 B          "
                                        "messages_sent 20001 where 20000 were asked for"));
    CHECK_THAT(run.out, Catch::Contains("PASS pipe.fifo          receive 100 B"));
    run = run_ipchost({"check", "--kit-dir", dir.path(), "--impl", "lax", "--plugin", "pipe.fifo"},
                      {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL protocol           version refused"));
    // A refusal with another status than the rule's, and a count published only at the end.
    write_kit(dir.path(), "wrong", "refuse-wrongly");
    write_kit(dir.path(), "late", "late-count");
    run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "wrong", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL protocol           unknown message") &&
                            Catch::Contains("status -9, where the rule is stage 'bogus_kind'"));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        send 100 B"));
    run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "late", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL socket.unix        intervals receive"));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        receive 100 B"));
}

TEST_CASE(
    "check --impl catches a kit that pins itself elsewhere or reports CPU it did not use or "
    "verifies nothing or miscounts its echoes",
    "[kits]") {
    if (ipcbench::platform::usable_cpu_count() < 2)
        IPCBENCH_SKIP("one usable CPU: no other CPU to pin to");
    ipcbench::test::temp_dir dir;
    write_kit(dir.path(), "loose", "wrong-cpu");
    write_kit(dir.path(), "greedy", "cpu-inflated");
    auto run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "loose", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    const int last = ipcbench::platform::usable_cpu_count() - 1;
    CHECK_THAT(run.out, Catch::Contains("FAIL socket.unix        affinity send") &&
                            Catch::Contains(fmt::format("--affinity asked CPU {} for the kit; its "
                                                        "threads may run on CPUs 0 ",
                                                        last)));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        duration send"));
    run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "greedy", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL socket.unix        duration send") &&
                            Catch::Contains("its whole process used"));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        affinity send"));
    write_kit(dir.path(), "blind", "blind");
    run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "blind", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL socket.unix        verify finds a byte") &&
                            Catch::Contains("the kit counted 0 corrupted messages, where one was"));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        receive 100 B"));
    write_kit(dir.path(), "marker", "echo-marker");
    run = run_ipchost(
        {"check", "--kit-dir", dir.path(), "--impl", "marker", "--plugin", "socket.unix"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL socket.unix        pong") &&
                            Catch::Contains("the ponger (marker) says it echoed"));
    CHECK_THAT(run.out, Catch::Contains("PASS socket.unix        ping "));
}

// go-channel takes the receiver side only: check --impl runs what it takes, and leaves out
// (counted, each named with the side) what its manifest does not, instead of failing them.
TEST_CASE("check --impl runs a one-sided kit on its side and says what it left out", "[kits]") {
    if (!usable_kits().contains("go-channel")) IPCBENCH_SKIP("the go-channel kit was not built");
    const auto run =
        run_ipchost({"check", "--impl", "go-channel", "--plugin", "pipe.fifo"}, {}, 170);
    INFO(run.out);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("FAIL") == std::string::npos);
    CHECK_THAT(run.out, Catch::Contains("native -> go-channel, 20000 messages"));
    CHECK_THAT(run.out, Catch::Contains("not run: kit 'go-channel' does not take the sender side"));
    int left_out = 0;
    for (auto at = run.out.find("\nSKIP "); at != std::string::npos;
         at = run.out.find("\nSKIP ", at + 1))
        ++left_out;
    CHECK(left_out > 0);
    CHECK_THAT(run.out, Catch::Contains(" 0 failed, " + std::to_string(left_out) + " not run"));
}

TEST_CASE("check --impl go passes", "[kits]") {
    passes_check("go");
}

TEST_CASE("check --impl python passes", "[kits]") {
    passes_check("python");
}

TEST_CASE("check --impl java passes", "[kits]") {
    passes_check("java");
}

TEST_CASE("check --impl dotnet passes", "[kits]") {
    passes_check("dotnet");
}

TEST_CASE("check --impl mono passes", "[kits]") {
    passes_check("mono");
}

namespace {

// Kits replay-SIDE that play the recorded side of a transcript (tests/kits/replay_worker.py).
void write_replay_kits(const std::string &dir, const std::string &transcript,
                       const std::vector<std::string> &sides) {
    for (const auto &side : sides) {
        const std::string name = "replay-" + side;
        std::filesystem::create_directories(dir + "/" + name);
        std::ofstream(dir + "/" + name + "/ipcbench-kit.json") << json{
            {"kit_manifest", 1},
            {"name", name},
            {"language", "Python"},
            {"worker",
             {"python3", std::string(SOURCE_DIR) + "/tests/kits/replay_worker.py", transcript, side,
              name}},
            {"runtime_version", {"python3", "--version"}},
            {"protocol", {"1.0"}},
            {"roles", {"sender", "receiver", "pinger", "ponger"}},
            {"transports", {"pipe.fifo", "socket.unix"}}}.dump();
    }
}

// The recorded worker's answer to its run: its result message.
json recorded_result(const std::string &transcript, const std::string &side) {
    std::ifstream in(transcript);
    std::string line;
    while (std::getline(in, line)) {
        const json e = json::parse(line);
        if (e["side"] == side && e["message"]["type"] == "result") return e["message"];
    }
    return nullptr;
}

}  // namespace

TEST_CASE("the golden transcripts replay against ipchost message for message", "[kits]") {
    if (!usable_kits().contains("python")) IPCBENCH_SKIP("no python3 for the replaying worker");
    ipcbench::test::temp_dir dir;
    const std::string transcripts = std::string(SOURCE_DIR) + "/docs/worker-protocol/transcripts/";
    SECTION("throughput: pipe.fifo, 1000 x 32 B") {
        const std::string t = transcripts + "throughput.jsonl";
        write_replay_kits(dir.path(), t, {"sender", "receiver"});
        const auto results =
            run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                      "--size", "32", "--count", "1000", "--warmup", "0", "--impl",
                      "sender=replay-sender", "--impl", "receiver=replay-receiver"});
        REQUIRE(results.size() == 1);
        INFO(results[0].dump().substr(0, 800));
        REQUIRE(results[0]["status"] == "ok");
        const json received = recorded_result(t, "receiver");
        CHECK(results[0]["integrity"]["messages_received"] ==
              received["parts"][0]["messages_received"]);
        CHECK(results[0]["integrity"]["messages_received"] == 1000);
    }
    SECTION("latency: socket.unix, 100 round trips") {
        const std::string t = transcripts + "latency.jsonl";
        write_replay_kits(dir.path(), t, {"pinger", "ponger"});
        const auto results =
            run_json({"--kit-dir", dir.path(), "--plugin", "socket.unix", "--mode", "latency",
                      "--size", "32", "--count", "100", "--warmup", "0", "--impl",
                      "pinger=replay-pinger", "--impl", "ponger=replay-ponger"});
        REQUIRE(results.size() == 1);
        INFO(results[0].dump().substr(0, 800));
        REQUIRE(results[0]["status"] == "ok");
        const json pinged = recorded_result(t, "pinger");
        CHECK(results[0]["latency_ns"]["samples"] == pinged["parts"][0]["round_trips"]);
        CHECK(results[0]["latency_ns"]["max"] == pinged["parts"][0]["histogram"]["max"]);
    }
    SECTION("failing: the kit refuses an option at setup") {
        const std::string t = transcripts + "failing.jsonl";
        write_replay_kits(dir.path(), t, {"sender", "receiver"});
        int code = 0;
        const auto results =
            run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                      "--size", "32", "--count", "10", "--warmup", "0", "--opt", "splice=vmsplice",
                      "--impl", "sender=replay-sender", "--impl", "receiver=replay-receiver"},
                     &code);
        REQUIRE(results.size() == 1);
        CHECK(results[0]["status"] == "failed");
        CHECK_THAT(results[0]["error"].get<std::string>(),
                   Catch::Contains("this kit runs pipe.fifo with splice=none only"));
        CHECK(code == 1);
    }
    SECTION("a host that sends another message than the transcript is caught") {
        // The throughput transcript replayed against a case of another size: the setup differs.
        write_replay_kits(dir.path(), transcripts + "throughput.jsonl", {"sender", "receiver"});
        const auto results =
            run_json({"--kit-dir", dir.path(), "--plugin", "pipe.fifo", "--mode", "throughput",
                      "--size", "64", "--count", "1000", "--warmup", "0", "--impl",
                      "sender=replay-sender", "--impl", "receiver=replay-receiver"});
        REQUIRE(results.size() == 1);
        CHECK(results[0]["status"] == "failed");
        CHECK_THAT(results[0]["error"].get<std::string>(),
                   Catch::Contains("message.max_message_size is 64, the transcript has 32"));
    }
}

TEST_CASE("every message of the golden transcripts fits the published message schema", "[kits]") {
    const std::string root = std::string(SOURCE_DIR) + "/docs/worker-protocol/";
    std::ifstream schema_file(root + "messages.schema.json");
    const json schema = json::parse(schema_file);
    std::size_t checked = 0;
    std::set<std::string> kinds;
    for (const char *name : {"throughput", "latency", "failing"}) {
        std::ifstream in(root + "transcripts/" + name + ".jsonl");
        std::string line;
        while (std::getline(in, line)) {
            const json message = json::parse(line).at("message");
            INFO(name << ": " << message.dump().substr(0, 300));
            CHECK(ipcbench::test::schema_problems(schema, message).empty());
            kinds.insert(message.at("type").get<std::string>());
            ++checked;
        }
    }
    CHECK(checked > 40);
    // A case's whole conversation is in them.
    for (const char *kind : {"hello", "welcome", "setup", "opened", "connect", "connected", "run",
                             "sent", "sender_done", "result", "close", "closed", "error"})
        CHECK(kinds.count(kind) == 1);
    // The schema is no formality: what a worker must refuse, it refuses.
    CHECK_FALSE(ipcbench::test::schema_problems(schema, json{{"type", "bogus"}}).empty());
    CHECK_FALSE(
        ipcbench::test::schema_problems(schema, json{{"type", "setup"}, {"role", "creator"}})
            .empty());
    CHECK_FALSE(ipcbench::test::schema_problems(schema, json{{"type", "welcome"}, {"protocol", 1}})
                    .empty());
}
