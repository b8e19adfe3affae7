// Every kind of result ipchost writes agrees with docs/result.schema.json: no field dropped, none
// undocumented, every type as documented.
#include <catch2/catch.hpp>

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
