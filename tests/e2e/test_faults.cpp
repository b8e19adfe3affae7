// A benchmarking host runs code it did not write: faulty plugins and peers must turn into a
// failed case with the reason, never a crash or hang of ipchost, and leave nothing behind.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "platform/process_identity.hpp"
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
    // After the whole fault suite: no worker of ours, nothing in the run directories' folder.
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(tmp.entries().empty());
}

TEST_CASE("a plugin whose entry point crashes is rejected, discovery goes on", "[faults]") {
    auto run = run_ipchost({"--list", "--verbose", "--plugin-dir", CRASH_PLUGIN_DIR});
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("ipcb-entry_crash.so: rejected [IPCB-LOAD-011]") &&
                            Catch::Contains("signal 11 (SIGSEGV)"));
    CHECK_THAT(run.out, Catch::Contains("pipe.fifo"));
}

// Runs `ipchost ARGS` in the background with TMPDIR=dir, waits (bounded) until its first case
// has opened its endpoints (the run directory's manifest exists), then runs `action` in the
// shell with $host set; the script's stderr ends with "exit CODE after MS ms".
static ipcbench::test::process_output run_then(const std::string &args, const std::string &dir,
                                               const std::string &action) {
    const std::string script =
        std::string("'") + IPCHOST_PATH + "' " + args +
        " & host=$!; n=0; until ls \"$TMPDIR\"/ipcbench-run-*/.cleanup.json >/dev/null 2>&1 || "
        "[ $n -ge 600 ]; do sleep 0.05; n=$((n+1)); done; start=$(date +%s%N); " +
        action + "; wait $host; code=$?; end=$(date +%s%N); " +
        "echo \"exit $code after $(( (end - start) / 1000000 )) ms\" >&2";
    return ipcbench::test::run_process({"/bin/sh", "-c", script}, {{"TMPDIR", dir}}, 120);
}

static long elapsed_ms(const std::string &err) {
    const auto at = err.rfind("after ");
    return at == std::string::npos ? -1 : std::stol(err.substr(at + 6));
}

TEST_CASE("SIGINT and SIGTERM stop both processes promptly, results marked interrupted",
          "[faults]") {
    ipcbench::test::temp_dir tmp;
    for (const std::string sig : {"INT", "TERM"}) {
        INFO("SIG" << sig);
        auto run = run_then(
            "-v --plugin mq.sysv,pipe.fifo --mode throughput --size 64 --duration 30 --warmup 0 "
            "--format json",
            tmp.path(), "kill -" + sig + " $host");
        INFO(run.err);
        CHECK_THAT(run.err, Catch::Contains("exit 130 after"));
        // Promptly: long before the 30 s duration or the watchdog, however busy the machine.
        CHECK(elapsed_ms(run.err) >= 0);
        CHECK(elapsed_ms(run.err) < 10000);
        auto results = json::parse(run.out).at("results");
        REQUIRE(results.size() == 1);  // the second case never started
        CHECK(results.at(0).at("transport") == "mq.sysv");
        CHECK(results.at(0).at("status") == "interrupted");
        // The queues this run's creator made are gone (not: no queue on the machine).
        const auto queues = ipcbench::test::named_addresses(run.err, "sysv");
        CHECK(queues.size() == 1);  // one queue: one stream, one direction
        const auto now = ipcbench::test::sysv_queue_ids();
        for (const auto &q : queues) CHECK(now.count(q.substr(5)) == 0);
    }
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(tmp.entries().empty());
}

TEST_CASE("a peer killed mid-run fails the case with its signal", "[faults]") {
    // The pipe receiver gets end-of-file when the sender dies; a queue receiver would block, so
    // the watchdog and the control channel must catch it too.
    ipcbench::test::temp_dir tmp;
    for (const char *transport : {"pipe.fifo", "mq.posix"}) {
        INFO(transport);
        // Kills this ipchost's workers only, once they run: other tests may run at the same time.
        auto run = run_then(std::string("--plugin ") + transport +
                                " --mode throughput --size 64 --duration 20 --warmup 0 "
                                "--format json",
                            tmp.path(), "pkill -KILL -P $host");
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

namespace {

// Children of `parent` (from /proc): the workers of an ipchost.
std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> out;
    for (const auto &e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto status = ipcbench::platform::read_process_status(std::stol(name));
        if (status && status->parent == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return out;
}

}  // namespace

TEST_CASE("SIGKILL of ipchost: its workers, or the next run, remove what it made", "[faults]") {
    for (const bool workers_too : {false, true}) {
        INFO((workers_too ? "ipchost and its workers SIGKILLed" : "ipchost SIGKILLed"));
        ipcbench::test::temp_dir tmp;
        const ipcbench::test::prepared_exec program(
            {IPCHOST_PATH, "--plugin", "mq.sysv", "--streams", "4", "--size", "64", "--mode",
             "throughput", "--duration", "30", "--timeout", "60"},
            {{"TMPDIR", tmp.path()}});
        const pid_t pid = fork();
        if (pid == 0) {
            const int null_fd = open("/dev/null", O_WRONLY);
            dup2(null_fd, 1);
            dup2(null_fd, 2);
            program.exec();
        }
        // Wait (bounded) until the creator has made its queues and the manifest names them.
        std::vector<std::string> queues;
        for (int i = 0; i < 300 && queues.empty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            for (const auto &e : std::filesystem::directory_iterator(tmp.path())) {
                std::ifstream in(e.path() / ".cleanup.json");
                if (!in) continue;
                const json manifest = json::parse(in);  // kept alive across the loop
                for (const auto &a : manifest.at("addresses"))
                    queues.push_back(a.get<std::string>().substr(5));  // "sysv:ID"
            }
        }
        // Whatever the assertions below find, this test's own queues do not outlive it (a broken
        // cleanup, as scripts/mutate.sh makes one, must fail the test, not leak queues). A removed
        // queue's id is not handed out again soon: the kernel adds a sequence number to it.
        struct remove_at_exit {
            const std::vector<std::string> &ids;
            ~remove_at_exit() {
                for (const auto &id : ids) msgctl(std::atoi(id.c_str()), IPC_RMID, nullptr);
            }
        } remove_leftovers{queues};
        std::vector<pid_t> workers = children_of(pid);
        if (workers_too) {
            // Nobody may clean up: ipchost frozen first (it would remove a dead creator's
            // objects), the workers killed before their parent dies (they would on SIGTERM).
            kill(pid, SIGSTOP);
            for (pid_t w : workers) kill(w, SIGKILL);
            auto any_alive = [&workers] {  // a zombie is dead: its stopped parent cannot reap it
                for (pid_t w : workers) {
                    const auto status = ipcbench::platform::read_process_status(w);
                    if (status && status->state != 'Z') return true;
                }
                return false;
            };
            for (int i = 0; i < 250 && any_alive(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        REQUIRE(queues.size() == 4);  // one per stream
        auto ours_left = [&queues] {
            const auto now = ipcbench::test::sysv_queue_ids();
            std::size_t left = 0;
            for (const auto &q : queues) left += now.count(q);
            return left;
        };
        if (!workers_too) {
            // The workers get SIGTERM when ipchost dies (PR_SET_PDEATHSIG) and remove the
            // queues they made themselves.
            for (int i = 0; i < 250 && ours_left() > 0; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
            // Not under a sanitizer: its runtime's interceptors make the cleanup from the signal
            // handler unreliable (seen under ASan); the next run below removes them anyway.
            CHECK(ours_left() == 0);
#endif
        } else {
            CHECK(ours_left() == 4);  // nobody could remove them
        }
        CHECK_FALSE(tmp.entries().empty());  // the run directory is the next run's to remove

        auto next = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--mode", "throughput",
                                 "--duration", "0.05", "--warmup", "0"},
                                {{"TMPDIR", tmp.path()}});
        INFO(next.err);
        CHECK(next.exit_code == 0);
        CHECK_THAT(next.err, Catch::Contains("left by an ipchost that was killed"));
        CHECK(ours_left() == 0);
        CHECK(tmp.entries().empty());
    }
}

TEST_CASE("one failing stream fails the case at once, with its cause", "[faults]") {
    // The 51st recv (in one of 4 receiving streams) returns a status no ABI has, once; its
    // sender then blocks on a full buffer. The case must end with that cause, long before the
    // 30 s duration and the watchdog.
    ipcbench::test::temp_dir tmp;
    const auto started = std::chrono::steady_clock::now();
    auto run = run_ipchost({"--plugin-dir", FAULT_PLUGIN_DIR,
                            "--plugin",     "faulty",
                            "--streams",    "4",
                            "--size",       "64",
                            "--mode",       "throughput",
                            "--duration",   "30",
                            "--warmup",     "0",
                            "--timeout",    "60",
                            "--format",     "json",
                            "--opt",        "faulty.stream:fault=bad_status",
                            "--opt",        "faulty.stream:at=recv",
                            "--opt",        "faulty.stream:side=creator",
                            "--opt",        "faulty.stream:after=50",
                            "--opt",        "faulty.stream:times=1"},
                           {{"TMPDIR", tmp.path()}}, 90);
    const auto took = std::chrono::steady_clock::now() - started;
    INFO(run.err);
    CHECK(run.exit_code == 1);
    const json r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "failed");
    CHECK_THAT(r.at("error").get<std::string>(), Catch::Contains("unknown status 42"));
    CHECK(took < std::chrono::seconds(20));
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(tmp.entries().empty());
}

// The helpers the checks above stand on must see what they look for: a check for "no worker
// left" built on a spelling the code no longer produces passes whatever is left running.
TEST_CASE("the leftover checks see a running case's workers and queues", "[faults]") {
    ipcbench::test::temp_dir tmp;
    ipcbench::test::process_output run;
    std::thread background([&] {
        run = run_ipchost({"-v", "--plugin", "mq.sysv", "--mode", "throughput", "--size", "64",
                           "--duration", "3", "--warmup", "0", "--format", "json"},
                          {{"TMPDIR", tmp.path()}}, 60);
    });
    std::vector<int> seen;
    std::set<std::string> queues_seen;
    for (int i = 0; i < 400 && seen.size() < 2; ++i) {
        seen = ipcbench::test::leftover_workers();
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    // The case runs 3 s: its queue exists for most of them.
    for (int i = 0; i < 40; ++i) {
        for (const auto &q : ipcbench::test::sysv_queue_ids()) queues_seen.insert(q);
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    const bool tagged = !ipcbench::test::tagged_processes().empty();
    background.join();
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(seen.size() == 2);  // the server worker and the client worker of the one case
    CHECK(tagged);
    // The queue the creator made is named in the verbose log, existed while it ran and is gone.
    const auto queues = ipcbench::test::named_addresses(run.err, "sysv");
    CHECK(queues.size() == 1);
    for (const auto &q : queues) {
        CHECK(queues_seen.count(q.substr(5)) == 1);
        CHECK(ipcbench::test::sysv_queue_ids().count(q.substr(5)) == 0);
    }
    CHECK(ipcbench::test::leftover_workers().empty());
    CHECK(ipcbench::test::is_worker_command(std::string("/x/bin/ipchost\0worker\0--agent", 29)));
    CHECK_FALSE(ipcbench::test::is_worker_command(std::string("/x/bin/ipchost\0serve", 20)));
}
