// Strings and figures from agents and result files are data (issue 39, item 8): whatever a
// hostile result file or agent puts in an error, a warning, a runtime, a transport name or a
// label reaches a terminal with its control characters (C0, C1, bidirectional overrides)
// neutralised, a CSV cell never starts a formula, a Markdown cell never opens a table cell or
// HTML of its own; an agent that reports impossible figures gets its row marked, not reported as
// ok; two agents claiming one node are named, and a star centre that names two is refused.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "model/plausibility.hpp"
#include "remote/agent_handshake.hpp"
#include "support/agent_process.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::temp_dir;
using nlohmann::json;

namespace {

// ESC ] 0 ; (a window title), BEL, ESC [ 2 J (clear the screen), CR LF and a forged line, a
// C1 CSI (U+009B) and a right-to-left override (U+202E), a spreadsheet formula, a Markdown cell
// break and HTML.
// Also a line separator (U+2028) and a paragraph separator (U+2029) with a forged line after
// each, the bidirectional isolates (U+2066, U+2069) and marks (U+200F), and a Markdown link and
// image (a beacon).
const std::string hostile =
    "\x1b]0;PWNED\x07\x1b[2J\r\n[error] FORGED \xc2\x9b"
    "31m \xe2\x80\xae"
    "txt.exe|<script>alert(1)</script>"
    "\xe2\x80\xa8[error] LS-FORGED\xe2\x80\xa9[error] PS \xe2\x81\xa6i\xe2\x81\xa9\xe2\x80\x8f";
// Where a reader shows longer text (an error, a warning): a Markdown link and image (a beacon).
const std::string hostile_links =
    " [click](http://evil.example/x) ![](http://evil.example/beacon.png)";

// A real result file with `hostile` in every string a reader shows.
std::string hostile_results(const temp_dir &tmp) {
    const auto run = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--count", "200",
                                  "--mode", "throughput", "--format", "json"});
    REQUIRE(run.exit_code == 0);
    json doc = json::parse(run.out);
    json &r = doc.at("results").at(0);
    json failed = r;
    failed["status"] = "failed";
    failed["error"] = "=HYPERLINK(\"http://evil\")" + hostile + hostile_links;
    failed["transport"] = "pipe.fifo" + hostile;
    failed["settings"]["transport"] = "pipe.fifo" + hostile;
    r["warnings"] = json::array({"@SUM(1+1)" + hostile + hostile_links});
    r["settings"]["transport"] = "pipe.fifo" + hostile;  // compare names its rows by it
    r["transport"] = "pipe.fifo" + hostile;
    r["sender"]["runtime"] = "+cmd" + hostile;
    doc.at("results").push_back(failed);
    doc["environment"]["kernel"] = hostile;
    const std::string path = tmp.path() + "/hostile.json";
    std::ofstream(path) << doc.dump();
    return path;
}

// Nothing in `out` a terminal would act on.
void check_inert(const std::string &out, const std::string &what, bool shows_text = true) {
    INFO(what << ":\n" << out);
    CHECK(out.find('\x1b') == std::string::npos);
    CHECK(out.find('\x07') == std::string::npos);
    CHECK(out.find('\r') == std::string::npos);
    CHECK(out.find("\xc2\x9b") == std::string::npos);
    CHECK(out.find("\xe2\x80\xae") == std::string::npos);
    CHECK(out.find("\n[error] FORGED") == std::string::npos);
    for (const char *sequence :
         {"\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x81\xa6", "\xe2\x81\xa9", "\xe2\x80\x8f"})
        CHECK(out.find(sequence) == std::string::npos);
    if (shows_text) CHECK_THAT(out, Catch::Contains("FORGED") && Catch::Contains("LS-FORGED"));
}

// What ipchost writes to a terminal: run with standard output and error on a pseudo-terminal.
std::string through_terminal(const std::vector<std::string> &args) {
    int master = -1, slave = -1;
    REQUIRE(openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        dup2(slave, 1);
        dup2(slave, 2);
        close(master);
        std::vector<char *> argv{const_cast<char *>(IPCHOST_PATH)};
        for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(IPCHOST_PATH, argv.data());
        _exit(127);
    }
    close(slave);
    std::string out;
    char buf[4096];
    for (int i = 0; i < 6000; ++i) {  // 60 s at most
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 10) == 1) {
            const ssize_t n = read(master, buf, sizeof buf);
            if (n <= 0) break;  // EIO once the child closed the terminal
            out.append(buf, static_cast<std::size_t>(n));
        }
    }
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    // The terminal turns each \n into \r\n: only what the program wrote is judged.
    std::string written;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!(out[i] == '\r' && i + 1 < out.size() && out[i + 1] == '\n')) written += out[i];
    return written;
}

}  // namespace

TEST_CASE("a hostile result file's strings reach every format as inert data", "[report]") {
    temp_dir tmp;
    const std::string file = hostile_results(tmp);
    const auto table = run_ipchost({"report", file, "--format", "table"});
    check_inert(table.out + table.err, "table");
    const auto markdown = run_ipchost({"report", file, "--format", "markdown"});
    check_inert(markdown.out, "markdown");
    CHECK(markdown.out.find("<script>") == std::string::npos);
    CHECK_THAT(markdown.out, Catch::Contains("&lt;script&gt;") && Catch::Contains("exe\\|"));
    const auto csv = run_ipchost({"report", file, "--format", "csv"});
    check_inert(csv.out, "csv");
    // No cell opens a formula: the ones that would are quoted with a leading '.
    CHECK(csv.out.find(",=HYPERLINK") == std::string::npos);
    CHECK(csv.out.find(",\"=HYPERLINK") == std::string::npos);
    CHECK_THAT(csv.out, Catch::Contains("\"'=HYPERLINK") && Catch::Contains(",'+cmd"));
    const auto compare = run_ipchost({"compare", file, file});
    check_inert(compare.out + compare.err, "compare");
    // No link or image is made of a result file's text in Markdown.
    CHECK(markdown.out.find("[click](") == std::string::npos);
    CHECK(markdown.out.find("![](") == std::string::npos);
    CHECK_THAT(markdown.out, Catch::Contains("\\[click\\]\\(http"));
}

TEST_CASE("a hostile result file reaches a terminal inert through every output", "[report]") {
    temp_dir tmp;
    const std::string file = hostile_results(tmp);
    // `report FILE` with no format writes the HTML page to standard output.
    const std::string page = through_terminal({"report", file});
    check_inert(page, "report FILE (HTML) on a terminal");
    CHECK_THAT(page, Catch::Contains("<html") && Catch::Contains("&lt;script&gt;"));
    for (const char *format : {"table", "markdown", "csv", "json", "jsonl"})
        check_inert(through_terminal({"report", file, "--format", format}),
                    std::string("report --format ") + format + " on a terminal");
    check_inert(through_terminal({"compare", file, file}), "compare on a terminal");
    check_inert(through_terminal({"trend", file, file, file}), "trend on a terminal", false);
}

TEST_CASE("a CSV figure that is a negative number stays a number", "[report]") {
    // The formula guard leaves figures alone: -1.5 is not a formula.
    ipcbench::model::case_result r;
    CHECK(ipcbench::model::implausible_figures(r).empty());
    const auto run = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--count", "100",
                                  "--mode", "throughput", "--format", "csv"});
    REQUIRE(run.exit_code == 0);
    CHECK(run.out.find(",'") == std::string::npos);  // nothing of a real run is guarded
}

TEST_CASE("impossible figures are named, whatever figure holds them", "[report]") {
    using ipcbench::model::case_result;
    using ipcbench::model::implausible_figures;
    case_result r;
    r.duration_s = 1;
    r.throughput = ipcbench::model::throughput_figures{};
    r.throughput->bytes_per_sec = 1e15;
    CHECK_THAT(implausible_figures(r), Catch::Contains("beyond what any link or memory carries"));
    r.throughput->bytes_per_sec = -5;
    CHECK_THAT(implausible_figures(r), Catch::Contains("negative"));
    r.throughput->bytes_per_sec = std::nan("");
    CHECK_THAT(implausible_figures(r), Catch::Contains("throughput"));
    r.throughput->bytes_per_sec = 1e9;
    r.throughput->messages_per_sec = 1e6;
    CHECK(implausible_figures(r).empty());
    r.latency = ipcbench::model::latency_figures{};
    r.latency->p50 = 900;
    r.latency->p99 = 100;  // below its p50
    r.latency->max = 1000;
    CHECK_THAT(implausible_figures(r), Catch::Contains("out of order"));
    r.latency.reset();
    r.receiver.cpu_percent = -3;
    CHECK_THAT(implausible_figures(r), Catch::Contains("receiver's CPU %"));
}

TEST_CASE("an agent that reports impossible figures gets its row marked, not ok", "[remote]") {
    // A real result of the case, then what a hostile agent (it holds the token) claims for it.
    const auto real = run_ipchost({"--plugin", "socket.tcp", "--size", "1K", "--count", "200",
                                   "--mode", "throughput", "--format", "json"});
    REQUIRE(real.exit_code == 0);
    json claimed = json::parse(real.out);
    claimed["results"][0]["throughput"]["bytes_per_sec"] = 3e15;
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(bind(listener, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0);
    REQUIRE(listen(listener, 4) == 0);
    REQUIRE(getsockname(listener, reinterpret_cast<sockaddr *>(&a), &len) == 0);
    const std::string address = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    std::thread hostile([&] {
        const int c = accept(listener, nullptr, nullptr);
        if (c < 0) return;
        timeval tv{5, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        auto say = [&](const json &m) {
            const std::string f = ipcbench::test::frame_on(c, m);
            (void)!write(c, f.data(), f.size());
        };
        const json hello = ipcbench::test::read_frame(c);
        ipcbench::test::answer_as_agent(c, hello, "s3cret-s3cret-s3cret-x");
        say({{"type", "welcome"}, {"agent", "ipchost 1.2.0"}});
        ipcbench::test::read_frame(c);  // the peer_case
        say({{"type", "peer_result"}, {"report", claimed}});
        ipcbench::test::read_frame(c);
        close(c);
        // The client's goodbye at the end of its run: taken and closed.
        pollfd p{listener, POLLIN, 0};
        if (poll(&p, 1, 5000) == 1) close(accept(listener, nullptr, nullptr));
    });
    ipcbench::test::agent b({"--token", "s3cret-s3cret-s3cret-x"});
    const auto run =
        run_ipchost({"--from", address, "--peer", b.address(), "--token", "s3cret-s3cret-s3cret-x",
                     "--plugin", "socket.tcp", "--size", "1K", "--count", "200", "--mode",
                     "throughput", "--format", "json"});
    hostile.join();
    close(listener);
    INFO(run.out << run.err);
    const json r = json::parse(run.out).at("results").at(0);
    CHECK(r.at("status") == "failed");
    CHECK_THAT(r.value("error", ""),
               Catch::Contains("impossible figures from the agent at " + address) &&
                   Catch::Contains("beyond what any link or memory"));
}

TEST_CASE("two agents claiming one node are named, and a star centre must be one agent",
          "[remote][fleet]") {
    using ipcbench::test::agent;
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
             "node=n1"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
           "node=n1"});
    const auto star = run_ipchost({"fleet", "--agent", a.address(), "--agent", b.address(),
                                   "--token", "s3cret-4f1c9e7a2b8d6053", "--pairs", "star=n1",
                                   "--plugin", "socket.tcp", "--size", "1K", "--duration", "0.1"});
    INFO(star.err);
    CHECK(star.exit_code == 2);
    CHECK_THAT(star.err, Catch::Contains("2 agents claim node=n1") &&
                             Catch::Contains(a.address()) && Catch::Contains(b.address()));
    CHECK_THAT(star.err,
               Catch::Contains("star=n1 names 2 agents") && Catch::Contains("name it by address"));
}
