// ipchost as a user runs it: two real processes, JSON that parses, clean errors.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

void check_process_figures(const json &p) {
    for (const char *key : {"cpu_user_s", "cpu_sys_s", "cpu_percent", "max_rss_kib",
                            "voluntary_ctx_switches", "involuntary_ctx_switches"})
        CHECK(p.contains(key));
    CHECK(p.at("max_rss_kib").get<long>() > 0);
    CHECK(p.at("cpu_user_s").get<double>() + p.at("cpu_sys_s").get<double>() > 0);
}

}  // namespace

TEST_CASE("ipchost --plugin pipe --format json: two processes, every byte counted", "[e2e]") {
    ipcbench::test::temp_dir tmp;
    auto run = run_ipchost(
        {"--plugin", "pipe", "--duration", "0.5", "--warmup", "0.1", "--format", "json"},
        {{"TMPDIR", tmp.path()}}, 120);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    json doc = json::parse(run.out);
    CHECK(doc.at("schema_version") == 1);
    CHECK(doc.at("ipcbench_version").is_string());
    for (const char *key : {"kernel", "cpu_model", "cores", "hostname"})
        CHECK(doc.at("environment").contains(key));
    const auto &results = doc.at("results");
    REQUIRE(results.size() == 2 * (3 + 1));  // 2 transports x (3 throughput sizes + 1 latency)
    int throughput = 0, latency = 0;
    REQUIRE_FALSE(results.empty());  // a loop over nothing asserts nothing
    for (const auto &r : results) {
        INFO(r.dump());
        CHECK(r.at("plugin") == "pipe");
        CHECK(r.at("status") == "ok");
        CHECK(r.at("duration_s").get<double>() > 0);
        const auto &integrity = r.at("integrity");
        CHECK(integrity.at("messages_sent").get<std::uint64_t>() > 0);
        CHECK(integrity.at("messages_received") == integrity.at("messages_sent"));
        CHECK(integrity.at("lost") == 0);
        CHECK(integrity.at("out_of_order") == 0);
        check_process_figures(r.at("sender"));
        check_process_figures(r.at("receiver"));
        CHECK(r.at("options").contains("pipe_size"));
        if (r.at("mode") == "throughput") {
            ++throughput;
            CHECK(r.at("throughput").at("bytes_per_sec").get<double>() > 0);
            CHECK(r.at("throughput").at("messages_per_sec").get<double>() > 0);
            CHECK(r.at("throughput").at("bytes_per_sec").get<double>() ==
                  Approx(r.at("throughput").at("messages_per_sec").get<double>() *
                         r.at("message_size").get<double>()));
        } else {
            ++latency;
            const auto &l = r.at("latency_ns");
            CHECK(l.at("samples").get<std::uint64_t>() > 0);
            CHECK(l.at("p50") <= l.at("p90"));
            CHECK(l.at("p90") <= l.at("p99"));
            CHECK(l.at("p99") <= l.at("p999"));
            CHECK(l.at("p999") <= l.at("max"));
            CHECK(l.at("mean").get<double>() > 0);
        }
    }
    CHECK(throughput == 6);
    CHECK(latency == 2);
    CHECK(tmp.entries().empty());  // no FIFO, no run directory left behind
}

TEST_CASE("count mode moves exactly that many messages", "[e2e]") {
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--mode", "throughput", "--size", "32",
                            "--count", "20000", "--warmup", "0", "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    auto r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("integrity").at("messages_sent") == 20000);
    CHECK(r.at("integrity").at("messages_received") == 20000);
}

TEST_CASE("a plugin written in plain C loads and runs, beside rejected files", "[e2e][abi]") {
    ipcbench::test::temp_dir tmp;
    std::string out_file = tmp.path() + "/result.json";
    auto run = run_ipchost({"--plugin-dir", FIXTURE_PLUGIN_DIR, "--plugin", "cplug", "--duration",
                            "0.3", "--warmup", "0.05", "--size", "64,4K", "--format", "json",
                            "--output", out_file});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.err, Catch::Contains("IPCB-LOAD-004"));  // rejections are reported...
    CHECK(run.out.empty());                                 // ...and results went to the file
    std::ifstream in(out_file);
    json doc = json::parse(in);
    REQUIRE(doc.at("results").size() == 4);
    REQUIRE_FALSE(doc.at("results").empty());  // a loop over nothing asserts nothing
    for (const auto &r : doc.at("results")) {
        CHECK(r.at("transport") == "cplug.stream");
        CHECK(r.at("status") == "ok");
        CHECK(r.at("integrity").at("messages_received") == r.at("integrity").at("messages_sent"));
    }
}

TEST_CASE("list shows transports, verbose adds rejected files with reasons", "[e2e]") {
    auto plain = run_ipchost({"--list"});
    REQUIRE(plain.exit_code == 0);
    CHECK_THAT(plain.out, Catch::Contains("pipe.fifo") && Catch::Contains("pipe.anon") &&
                              Catch::Contains("stream,reliable"));
    auto verbose = run_ipchost({"--list", "--verbose", "--plugin-dir", FIXTURE_PLUGIN_DIR});
    REQUIRE(verbose.exit_code == 0);
    CHECK_THAT(verbose.out, Catch::Contains("cplug.stream"));
    CHECK_THAT(verbose.out, Catch::Contains("ipcb-abi_major.so: rejected [IPCB-LOAD-004]"));
    CHECK_THAT(verbose.out, Catch::Contains("rebuild the plugin"));
    auto describe = run_ipchost({"--describe", "pipe.fifo"});
    CHECK(describe.exit_code == 0);
    CHECK_THAT(describe.out, Catch::Contains("pipe_size") && Catch::Contains("splice") &&
                                 Catch::Contains("data path: send/recv, borrow/publish, "
                                                 "send_batch"));
    auto ring = run_ipchost({"--describe", "shm.ring"});
    CHECK_THAT(ring.out, Catch::Contains("data path: send/recv, borrow/publish, take/release, "
                                         "send_batch, recv_batch"));
}

TEST_CASE("bad input: one line naming the problem, exit code 2", "[e2e][cli]") {
    struct bad_case {
        std::vector<std::string> args;
        const char *needle;
    };
    const bad_case cases[] = {
        {{"--size", "1Q"}, "unknown unit 'Q'"},
        {{"--size", "-1"}, "'-1'"},
        {{"--duration", "NaN"}, "--duration 'NaN'"},
        {{"--duration", "0"}, "--duration '0'"},
        {{"--plugin", "nope"}, "--plugin 'nope': no such plugin"},
        {{"--plugin", "pipe", "--opt", "colour=red"}, "option 'colour'"},
        {{"--bogus"}, "bogus"},
        {{"--plugin-dir", "/nonexistent/dir"}, "not a readable directory"},
        {{"--describe", "pipe.nope"}, "no transport or plugin 'pipe.nope'"},
        {{"--batch", "0"}, "--batch"},
        {{"--zero-copy", "maybe"}, "--zero-copy 'maybe': expected auto, on or off"},
        {{"--batch", "4", "--rate", "1000"}, "--batch and --rate"},
        // A typo gets the name it was probably meant to be.
        {{"--sise", "64"}, "unrecognised option '--sise' (did you mean '--size'?)"},
        {{"--plugin", "pipe.fifoo"}, "no such plugin or transport (did you mean 'pipe.fifo'?)"},
        {{"--plugin", "sockt"}, "(did you mean 'socket'?)"},
        {{"--columns", "transprt"}, "no such column (did you mean 'transport'?)"},
        {{"--impl", "receiver=nativ"}, "no kit of that name (did you mean 'native'?)"},
    };
    for (const auto &c : cases) {
        auto run = run_ipchost(c.args);
        INFO(c.needle << "\n" << run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains(c.needle));
        CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    }
}

TEST_CASE("a failed write of results is an error, not a silent exit 0", "[cli]") {
    const std::vector<std::string> run = {"--plugin", "pipe.fifo",  "--size",     "64",
                                          "--mode",   "throughput", "--duration", "0.05",
                                          "--warmup", "0"};
    for (const std::string flag : {"--output", "--histogram"}) {
        std::vector<std::string> args = run;
        args.insert(args.end(), {flag, "/dev/full"});
        auto r = ipcbench::test::run_ipchost(args);
        INFO(flag << ": " << r.err);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.err, Catch::Contains("/dev/full") && Catch::Contains("failed"));
    }
    auto listed = ipcbench::test::run_process(
        {"/bin/sh", "-c", std::string("exec '") + IPCHOST_PATH + "' --list >/dev/full"});
    CHECK(listed.exit_code == 1);
    CHECK_THAT(listed.err, Catch::Contains("writing to stdout failed"));
}

TEST_CASE("table headers read as words, and RSS says its binary unit", "[cli]") {
    auto run = ipcbench::test::run_ipchost(
        {"--plugin", "pipe.fifo", "--size", "64", "--duration", "0.05", "--warmup", "0"});
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("pinger CPU") && Catch::Contains("ponger CPU") &&
                            Catch::Contains("MiB"));  // peak RSS, e.g. 5.4MiB
    CHECK(run.out.find("png CPU") == std::string::npos);
}

// Every column the CSV has can be asked for by --columns in a table, including those the tables
// do not show by themselves (`--columns transport,error` ended with "error: bad_function_call").
TEST_CASE("a table takes every CSV column --columns names, an error's text included", "[cli]") {
    const std::vector<std::string> base = {"--plugin",   "pipe.fifo", "--mode",   "throughput",
                                           "--duration", "0.05",      "--warmup", "0"};
    auto args = base;
    args.insert(args.end(), {"--format", "csv"});
    const auto csv = ipcbench::test::run_ipchost(args);
    REQUIRE(csv.exit_code == 0);
    const std::string keys = csv.out.substr(0, csv.out.find('\n'));
    REQUIRE(keys.find("error") != std::string::npos);
    for (const char *format : {"table", "markdown"}) {
        auto picked = base;
        picked.insert(picked.end(), {"--format", format, "--columns", keys});
        const auto run = ipcbench::test::run_ipchost(picked);
        INFO(format << ": " << run.err);
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.out, Catch::Contains("pipe.fifo"));
    }
    // A case that fails: its error text in the column asked for.
    const auto failed = ipcbench::test::run_ipchost(
        {"--plugin", "pipe.fifo", "--size", "1K", "--mode", "throughput", "--count", "100000000",
         "--timeout", "1", "--warmup", "0", "--columns", "transport,error"});
    INFO(failed.out << failed.err);
    CHECK_THAT(failed.out, Catch::Contains("pipe.fifo") && Catch::Contains("timed out"));
    CHECK_THAT(failed.err, !Catch::Contains("bad_function_call"));
}

TEST_CASE("the default table fits 120 columns, and --wide and --columns show the rest", "[cli]") {
    const std::vector<std::vector<std::string>> runs = {
        {"--plugin", "pipe,socket,udp,shm", "--duration", "0.05", "--warmup", "0"},
        {"--plugin", "socket.unix,socket.seqpacket", "--streams", "4", "--size", "64K",
         "--duration", "0.05", "--warmup", "0", "--repeat", "2", "--batch", "4"},
        {"--plugin", "udp.inet", "--rate", "1000", "--size", "1K", "--duration", "0.1", "--warmup",
         "0"},
    };
    for (const auto &args : runs) {
        auto run = ipcbench::test::run_ipchost(args);
        INFO(run.out << run.err);
        REQUIRE(run.exit_code == 0);
        std::istringstream in(run.out);
        std::size_t widest = 0;
        for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
        CHECK(widest <= 120);
        CHECK_THAT(run.out, Catch::Contains("MB/s") && Catch::Contains("msg/s") &&
                                Catch::Contains("sender CPU%"));
    }
    // --wide: every column (wider than 120 with these); --columns: those only.
    auto wide = ipcbench::test::run_ipchost({"--plugin", "socket.unix", "--size", "1K", "--mode",
                                             "throughput", "--duration", "0.05", "--warmup", "0",
                                             "--wide"});
    CHECK_THAT(wide.out, Catch::Contains("MiB/s") && Catch::Contains("sender us/MB") &&
                             !Catch::Contains("--wide shows"));
    auto picked = ipcbench::test::run_ipchost({"--plugin", "socket.unix", "--size", "1K", "--mode",
                                               "throughput", "--duration", "0.05", "--warmup", "0",
                                               "--columns", "transport,mbit_per_sec"});
    CHECK_THAT(picked.out, Catch::Contains("transport    Mbit/s\n"));
    auto unknown = ipcbench::test::run_ipchost({"--plugin", "pipe.fifo", "--columns", "speed"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("--columns 'speed': no such column") &&
                                Catch::Contains("mb_per_sec"));
}

TEST_CASE("into a pipe each finished case prints one progress line, none with -q", "[cli]") {
    const std::vector<std::string> args = {"--plugin", "pipe.fifo,socket.unix",
                                           "--size",   "64",
                                           "--mode",   "throughput",
                                           "--count",  "200",
                                           "--warmup", "0"};
    auto run = ipcbench::test::run_ipchost(args);  // stderr is a pipe here, not a terminal
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.err, Catch::Contains("[1/2] pipe.fifo throughput 64 B: ") &&
                            Catch::Contains("MB/s") && Catch::Contains(", 1 case left"));
    CHECK_THAT(run.err, Catch::Contains("[2/2] socket.unix throughput 64 B: ") &&
                            Catch::Contains(", 0 cases left"));
    CHECK_THAT(run.err, !Catch::Contains("\033[K"));  // no terminal control codes into a log
    std::vector<std::string> quiet = args;
    quiet.push_back("-q");
    auto silent = ipcbench::test::run_ipchost(quiet);
    REQUIRE(silent.exit_code == 0);
    CHECK_THAT(silent.err, !Catch::Contains("[1/2]"));
    // A case skipped before it starts is named as a run one is: transport, mode and size.
    auto skipped = ipcbench::test::run_ipchost(
        {"--plugin", "udp.inet", "--size", "70000", "--mode", "throughput"});
    INFO(skipped.err);
    CHECK_THAT(skipped.err, Catch::Contains("[1/1] udp.inet throughput 70000 B: skipped, "));
}

TEST_CASE("ipchost system names a busy other process, and a run records its conditions", "[cli]") {
    const pid_t busy = fork();
    REQUIRE(busy >= 0);
    if (busy == 0) {  // spins for at most 20 s: the test kills it long before
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < until) {
        }
        _exit(0);
    }
    auto shown = ipcbench::test::run_ipchost({"system", "--format", "json"});
    kill(busy, SIGKILL);
    waitpid(busy, nullptr, 0);
    INFO(shown.out << shown.err);
    REQUIRE(shown.exit_code == 0);
    const json doc = json::parse(shown.out);
    const json &m = doc.at("conditions");
    CHECK(m.at("sample_s").get<double>() >= 0.9);
    CHECK(m.at("cpus").get<unsigned>() == std::thread::hardware_concurrency());
    bool found = false;
    for (const auto &p : m.at("busiest"))
        if (p.at("pid").get<int>() == busy) {
            found = true;
            CHECK(p.at("cpu_percent").get<double>() > 5);
        }
    CHECK(found);
    std::set<std::string> names;
    for (const auto &c : doc.at("checks")) names.insert(c.at("name").get<std::string>());
    CHECK(names == std::set<std::string>{"virtualisation", "CPU frequency", "turbo", "SMT",
                                         "isolated CPUs", "interrupts", "load", "ASLR"});
    const json load = *std::find_if(doc.at("checks").begin(), doc.at("checks").end(),
                                    [](const json &c) { return c.at("name") == "load"; });
    CHECK_THAT(load.at("state").get<std::string>(),
               Catch::Contains("(pid " + std::to_string(busy) + ")"));
    CHECK_FALSE(load.at("advice").get<std::string>().empty());
    // The text form says the same, and asks nothing.
    auto text = ipcbench::test::run_ipchost({"system"});
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("virtualisation") && Catch::Contains("ASLR"));
    CHECK(ipcbench::test::run_ipchost({"system", "extra"}).exit_code == 2);
    // A run's result keeps the conditions over the run.
    auto run = ipcbench::test::run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--mode",
                                            "throughput", "--count", "100", "--warmup", "0",
                                            "--format", "json"});
    REQUIRE(run.exit_code == 0);
    const json result = json::parse(run.out);
    CHECK(result.at("conditions").at("sample_s").get<double>() > 0);
    CHECK(result.at("conditions").at("cpus").get<unsigned>() ==
          std::thread::hardware_concurrency());
}

TEST_CASE("precision: repeats until the median is pinned, or to its cap and says so", "[cli]") {
    const std::vector<std::string> base = {"--plugin", "pipe.fifo",  "--size",   "1K",
                                           "--mode",   "throughput", "--count",  "2000",
                                           "--warmup", "0",          "--format", "json"};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), base.begin(), base.end());
        auto run = run_ipchost(extra);
        INFO(run.err);
        REQUIRE(run.exit_code == 0);
        return json::parse(run.out);
    };
    // Out of reach (+/-0.001 %): exactly the cap, and a warning with the interval it got.
    const json capped = with({"--precision", "0.001", "--repeat", "6"});
    const json &c = capped.at("results").at(0);
    CHECK(c.at("repetitions").get<int>() == 6);
    CHECK(capped.at("settings").at("precision").get<double>() == Approx(0.00001));
    bool said = false;
    for (const auto &w : c.at("warnings"))
        said = said || w.get<std::string>().find("not the +/-0.001% asked") != std::string::npos;
    CHECK(said);
    // Within reach or not, a case stops once its interval is within the share, from 6 on, and
    // says so only when it never got there.
    const json loose = with({"--precision", "40", "--repeat", "12"});
    const json &r = loose.at("results").at(0);
    const auto n = r.at("repetitions").get<std::size_t>();
    CHECK(n >= 6);
    CHECK(n <= 12);
    const std::vector<double> samples = r.at("statistics").at("bytes_per_sec").at("samples");
    const json &s = r.at("statistics").at("bytes_per_sec");
    const double median = s.at("median"), low = s.at("median_low"), high = s.at("median_high");
    const bool within = high - median <= 0.4 * median && median - low <= 0.4 * median;
    CHECK(within == (n < 12 || r.at("warnings").dump().find("asked") == std::string::npos));
    CHECK(samples.size() == n);
    CHECK(run_ipchost({"--precision", "5", "--repeat", "3"}).exit_code == 2);  // no interval at 3
    CHECK(run_ipchost({"--repeat", "often"}).exit_code == 2);
}
