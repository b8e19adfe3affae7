// A benchmarking host runs code it did not write: faulty plugins and peers must turn into a
// failed case with the reason, never a crash or hang of ipchost, and leave nothing behind.
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

struct fault_case {
    const char *fault, *at, *side, *after;
    const char *expected;  // in the failed result's error
};

json run_faulty(const fault_case &c, int *exit_code, const std::string &tmp) {
    std::vector<std::string> args = {"--plugin-dir", FAULT_PLUGIN_DIR,
                                     "--plugin",     "faulty,pipe.fifo",
                                     "--size",       "64",
                                     "--mode",       "throughput",
                                     "--duration",   "0.2",
                                     "--warmup",     "0",
                                     "--timeout",    "3",
                                     "--format",     "json"};
    for (auto [k, v] :
         {std::pair{"fault", c.fault}, {"at", c.at}, {"side", c.side}, {"after", c.after}})
        args.insert(args.end(), {"--opt", std::string("faulty.stream:") + k + "=" + v});
    auto run = run_ipchost(args, {{"TMPDIR", tmp}}, 60);
    INFO(run.err);
    *exit_code = run.exit_code;
    return json::parse(run.out);
}

}  // namespace

TEST_CASE("faults in a plugin fail that case with the reason, the others still run", "[faults]") {
    ipcbench::test::temp_dir tmp;
    const auto queues_before = ipcbench::test::sysv_queue_count();
    const fault_case cases[] = {
        {"segv", "open", "creator", "0", "receiver process died (signal 11 (SIGSEGV))"},
        {"segv", "send", "connector", "5", "sender process died (signal 11 (SIGSEGV))"},
        {"abort", "recv", "creator", "100", "receiver process died (signal 6 (SIGABRT))"},
        {"exit", "connect", "connector", "0", "sender process died (exit code 7)"},
        {"hang", "recv", "creator", "10", "timed out"},
        {"hang", "connect", "both", "0", "timed out"},
        {"garbage", "send", "connector", "10", "broke the control protocol"},
        {"close_control", "recv", "creator", "10", "receiver process"},
        {"zero_len", "recv", "creator", "0", "recv returned IPCB_OK with 0 bytes"},
        {"huge_len", "recv", "creator", "0", "recv returned IPCB_OK with 1064 bytes"},
        {"bad_status", "send", "connector", "0", "unknown status 42"},
        {"null_endpoint", "open", "connector", "0", "open returned IPCB_OK without an endpoint"},
    };
    for (const auto &c : cases) {
        INFO(c.fault << " at " << c.at << " on " << c.side);
        int exit_code = -1;
        json doc = run_faulty(c, &exit_code, tmp.path());
        CHECK(exit_code == 1);
        const auto &results = doc.at("results");
        REQUIRE(results.size() == 2);
        CHECK(results.at(0).at("transport") == "faulty.stream");
        CHECK(results.at(0).at("status") == "failed");
        CHECK_THAT(results.at(0).at("error").get<std::string>(), Catch::Contains(c.expected));
        CHECK(results.at(1).at("transport") == "pipe.fifo");
        CHECK(results.at(1).at("status") == "ok");
    }
    // After the whole fault suite: nothing left anywhere.
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(ipcbench::test::sysv_queue_count() == queues_before);
    CHECK(tmp.entries().empty());
}

TEST_CASE("a plugin whose entry point crashes is rejected, discovery goes on", "[faults]") {
    auto run = run_ipchost({"--list", "--verbose", "--plugin-dir", CRASH_PLUGIN_DIR});
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("ipcb-entry_crash.so: rejected [IPCB-LOAD-011]") &&
                            Catch::Contains("signal 11 (SIGSEGV)"));
    CHECK_THAT(run.out, Catch::Contains("pipe.fifo"));
}

TEST_CASE("SIGINT and SIGTERM stop both processes within a second, results marked interrupted",
          "[faults]") {
    const auto queues_before = ipcbench::test::sysv_queue_count();
    for (int sig : {SIGINT, SIGTERM}) {
        INFO("signal " << sig);
        double exit_s = 99;
        auto run = ipcbench::test::run_process_signalled(
            {IPCHOST_PATH, "--plugin", "mq.sysv,pipe.fifo", "--mode", "throughput", "--size", "64",
             "--duration", "30", "--warmup", "0", "--format", "json"},
            1.0, sig, &exit_s);
        INFO(run.err);
        CHECK(run.exit_code == 130);
        CHECK(exit_s < 1.5);
        auto results = json::parse(run.out).at("results");
        REQUIRE(results.size() == 1);  // the second case never started
        CHECK(results.at(0).at("transport") == "mq.sysv");
        CHECK(results.at(0).at("status") == "interrupted");
        CHECK_THAT(run.err, Catch::Contains("interrupted"));
    }
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(ipcbench::test::sysv_queue_count() == queues_before);  // the killed creator's queue
}

TEST_CASE("a peer killed mid-run fails the case with its signal", "[faults]") {
    // The pipe receiver gets end-of-file when the sender dies; a queue receiver would block, so
    // the watchdog and the control channel must catch it too.
    ipcbench::test::temp_dir tmp;
    for (const char *transport : {"pipe.fifo", "mq.posix"}) {
        INFO(transport);
        // Kills this ipchost's workers only: other tests may run at the same time.
        std::string script = std::string(IPCHOST_PATH) + " --plugin " + transport +
                             " --mode throughput --size 64 --duration 20 --warmup 0 --format json"
                             " & host=$!; sleep 1; pkill -KILL -P $host; wait $host";
        auto run =
            ipcbench::test::run_process({"/bin/sh", "-c", script}, {{"TMPDIR", tmp.path()}}, 60);
        INFO(run.err);
        auto r = json::parse(run.out).at("results").at(0);
        CHECK(r.at("status") == "failed");
        CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains("signal 9 (SIGKILL)"));
    }
    CHECK(tmp.entries().empty());
    CHECK(ipcbench::test::leftover_workers().empty());
}

TEST_CASE("junk in a plugin folder is rejected file by file", "[faults]") {
    ipcbench::test::temp_dir dir;
    namespace fs = std::filesystem;
    auto write = [&](const std::string &name, const std::string &bytes) {
        std::ofstream(dir.path() + "/" + name, std::ios::binary) << bytes;
    };
    write("empty.so", "");
    write("text.so", "#!/bin/sh\necho not a library\n");
    // Valid ELF headers for machines this is not: 32-bit x86 and 64-bit AArch64.
    std::string elf32 = std::string(
                            "\x7f"
                            "ELF\x01\x01\x01",
                            7) +
                        std::string(9, '\0') + std::string("\x03\x00\x03\x00\x01\x00\x00\x00", 8) +
                        std::string(36, '\0');
    std::string arm64 = std::string(
                            "\x7f"
                            "ELF\x02\x01\x01",
                            7) +
                        std::string(9, '\0') + std::string("\x03\x00\xb7\x00\x01\x00\x00\x00", 8) +
                        std::string(48, '\0');
    write("i386.so", elf32);
    write("aarch64.so", arm64);
    fs::create_symlink("loop.so", dir.path() + "/loop.so");
    fs::create_directory(dir.path() + "/directory.so");
    auto run = run_ipchost({"--list", "--verbose", "--plugin-dir", dir.path()});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    for (const char *name : {"empty.so", "text.so", "i386.so", "aarch64.so"})
        CHECK_THAT(run.out, Catch::Contains(std::string(name) + ": rejected [IPCB-LOAD-001]"));
    CHECK_THAT(run.out, Catch::Contains("loop.so: rejected [IPCB-LOAD-009]"));
    CHECK_THAT(run.out, Catch::Contains("directory.so: rejected [IPCB-LOAD-009]"));
    CHECK_THAT(run.out, Catch::Contains("pipe.fifo"));  // the default folder still loads
}
