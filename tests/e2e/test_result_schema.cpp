// Every kind of result ipchost writes agrees with docs/result.schema.json: no field dropped, none
// undocumented, every type as documented.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/json_schema.hpp"
#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::schema_problems;
using nlohmann::json;

namespace {

json schema() {
    std::ifstream in(RESULT_SCHEMA_PATH);
    return json::parse(in);
}

std::string joined(const std::vector<std::string> &lines) {
    std::string out;
    for (const auto &l : lines) out += l + "\n";
    return out;
}

}  // namespace

TEST_CASE("the schema check itself catches a dropped, an extra and a mistyped field", "[schema]") {
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--mode", "throughput",
                            "--duration", "0.05", "--warmup", "0", "--format", "json"});
    REQUIRE(run.exit_code == 0);
    const json good = json::parse(run.out), s = schema();
    CHECK(schema_problems(s, good).empty());
    json dropped = good, extra = good, mistyped = good;
    dropped["results"][0]["integrity"].erase("lost");
    extra["results"][0]["receiver"]["surprise"] = 1;
    mistyped["results"][0]["message_size"] = "64";
    CHECK_THAT(joined(schema_problems(s, dropped)), Catch::Contains("'lost' is missing"));
    CHECK_THAT(joined(schema_problems(s, extra)),
               Catch::Contains("'surprise' is not in the schema"));
    CHECK_FALSE(schema_problems(s, mistyped).empty());
}

TEST_CASE("every result kind matches docs/result.schema.json", "[schema]") {
    const json s = schema();
    const std::vector<std::vector<std::string>> runs = {
        // throughput, two streams, live intervals
        {"--plugin", "socket.unix", "--size", "1K", "--mode", "throughput", "--streams", "2",
         "--duration", "0.2", "--warmup", "0", "--interval", "0.1"},
        // latency (round trip) and a size above the transport's limit (skipped)
        {"--plugin", "udp.inet", "--size", "64,100K", "--duration", "0.05", "--warmup", "0"},
        // paced: one-way latency from the schedule
        {"--plugin", "udp.unix", "--rate", "500", "--size", "64", "--duration", "0.1", "--warmup",
         "0"},
        // repeated: statistics and the repetition count
        {"--plugin", "pipe.fifo", "--size", "64", "--mode", "throughput", "--repeat", "2",
         "--duration", "0.05", "--warmup", "0"},
        // both directions at once
        {"--plugin", "pipe.fifo", "--size", "64", "--mode", "throughput", "--bidir", "--duration",
         "0.05", "--warmup", "0"},
        // a failed case
        {"--plugin-dir", FAULT_PLUGIN_DIR, "--plugin", "faulty", "--size", "64", "--mode",
         "throughput", "--duration", "0.1", "--timeout", "20", "--opt", "faulty.stream:fault=exit",
         "--opt", "faulty.stream:at=send"},
    };
    std::set<std::string> statuses, modes;
    for (auto args : runs) {
        args.insert(args.end(), {"--format", "json"});
        auto run = run_ipchost(args);
        INFO(args[1] << " " << args[3] << ": " << run.err);
        REQUIRE(run.exit_code <= 1);
        const json doc = json::parse(run.out);
        REQUIRE_FALSE(doc.at("results").empty());
        for (const auto &r : doc.at("results")) {
            statuses.insert(r.at("status").get<std::string>());
            modes.insert(r.at("mode").get<std::string>());
            if (r.at("status") != "ok" || r.at("latency_ns").is_null()) continue;
            const auto &stream = r.at("per_stream").at(0);
            const double per_message = r.at("mode") == "latency" ? 2 : 1;  // there and back
            CHECK(stream.at("bytes_per_sec").get<double>() ==
                  Approx(stream.at("messages_per_sec").get<double>() * per_message *
                         r.at("message_size").get<double>()));
            const auto &l = r.at("latency_ns");  // min is exact, and the smallest
            CHECK(l.at("min").get<double>() > 0);
            CHECK(l.at("min").get<double>() <= l.at("p50").get<double>());
            CHECK(l.at("p50").get<double>() <= l.at("max").get<double>());
        }
        const auto problems = schema_problems(s, doc);
        INFO(joined(problems));
        CHECK(problems.empty());
    }
    CHECK(statuses == std::set<std::string>{"ok", "skipped", "failed"});
    CHECK(modes == std::set<std::string>{"throughput", "latency"});
}

namespace {

// Runs ipchost with stdout on a pipe and notes when each line arrived (seconds after start).
struct timed_line {
    double at = 0;
    std::string text;
};
std::vector<timed_line> lines_as_they_come(const std::vector<std::string> &args, double *ended) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> argv{IPCHOST_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    const ipcbench::test::prepared_exec program(argv, {});
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        program.exec();
    }
    close(out[1]);
    std::vector<timed_line> lines;
    std::string partial;
    char buf[65536];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) {
        const double at =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        partial.append(buf, static_cast<std::size_t>(n));
        for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n')) {
            lines.push_back({at, partial.substr(0, nl)});
            partial.erase(0, nl + 1);
        }
    }
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *ended = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    return lines;
}

}  // namespace

TEST_CASE("JSON lines (format jsonl) stream each interval and result while the run goes on",
          "[schema]") {
    std::ifstream in(EVENTS_SCHEMA_PATH);
    const json events = json::parse(in), document = schema();
    double ended = 0;
    const auto lines = lines_as_they_come(
        {"--plugin", "pipe.fifo,udp.inet", "--size", "1K,100K", "--mode", "throughput",
         "--duration", "1.5", "--warmup", "0", "--interval", "0.25", "--format", "jsonl"},
        &ended);
    REQUIRE(lines.size() >= 4);
    json rebuilt;
    std::vector<std::string> kinds;
    double first_interval_at = -1;
    int intervals_of_first_case = 0;
    for (const auto &l : lines) {
        const json e = json::parse(l.text);
        INFO(l.text.substr(0, 300));
        const auto problems = schema_problems(events, e);
        INFO(joined(problems));
        CHECK(problems.empty());
        const std::string kind = e.at("event");
        kinds.push_back(kind);
        if (kind == "start") {
            rebuilt = e;
            rebuilt.erase("event");
            rebuilt["results"] = json::array();
        } else if (kind == "result") {
            rebuilt["results"].push_back(e.at("result"));
        } else if (kind == "interval") {
            if (first_interval_at < 0) first_interval_at = l.at;
            if (e.at("transport") == "pipe.fifo" && rebuilt["results"].empty())
                ++intervals_of_first_case;
        }
    }
    CHECK(kinds.front() == "start");
    CHECK(kinds.back() == "end");
    CHECK(json::parse(lines.back().text).at("results") == 4);
    // Streamed: the first interval came while the run still had seconds to go (four cases of
    // 1.5 s, three of them measured), not at its end.
    REQUIRE(first_interval_at >= 0);
    CHECK(ended - first_interval_at > 2.0);
    CHECK(intervals_of_first_case >= 5);  // 1.5 s in 0.25 s intervals, the last one short
    // The lines put together are the JSON document.
    const auto problems = schema_problems(document, rebuilt);
    INFO(joined(problems));
    CHECK(problems.empty());
    REQUIRE(rebuilt.at("results").size() == 4);
    CHECK(rebuilt["results"][3].at("status") == "skipped");  // udp.inet 100 KiB
    // The intervals of a result add up to what it counted.
    const auto &first = rebuilt["results"][0];
    std::uint64_t messages = 0;
    for (const auto &i : first.at("intervals")) messages += i.at("messages").get<std::uint64_t>();
    CHECK(messages == first.at("integrity").at("messages_received").get<std::uint64_t>());
}
