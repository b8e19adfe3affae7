#include <catch2/catch.hpp>

#include "cli/command_line.hpp"
#include "cli/usage_error.hpp"
#include "cli/value_parsing.hpp"
#include "text/suggestion.hpp"

using namespace ipcbench::cli;

TEST_CASE("sizes take binary suffixes", "[cli]") {
    CHECK(parse_size("--size", "32") == 32);
    CHECK(parse_size("--size", "1K") == 1024);
    CHECK(parse_size("--size", "64k") == 65536);
    CHECK(parse_size("--size", "1M") == 1048576);
    CHECK(parse_size_list("--size", "32,1K,,64K") == std::vector<std::uint64_t>{32, 1024, 65536});
}

TEST_CASE("bad sizes name the value and what is accepted", "[cli]") {
    auto message = [](const std::string &text) {
        try {
            parse_size_list("--size", text);
        } catch (const usage_error &e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK_THAT(message("-1"), Catch::Contains("'-1'") && Catch::Contains("byte count"));
    CHECK_THAT(message("1Q"), Catch::Contains("unknown unit 'Q'"));
    CHECK_THAT(message("0"), Catch::Contains("at least 8 bytes"));
    CHECK_THAT(message("4"), Catch::Contains("at least 8 bytes"));
    CHECK_THAT(message("2G"), Catch::Contains("1 GiB limit"));
    CHECK_THAT(message("99999999999999999999999"), Catch::Contains("1 GiB limit"));
}

TEST_CASE("durations reject zero, negatives, NaN and garbage", "[cli]") {
    CHECK(parse_seconds("--duration", "0.5", false) == 0.5);
    CHECK(parse_seconds("--warmup", "0", true) == 0);
    for (const char *bad : {"0", "-3", "NaN", "inf", "1s", "", "1e9"})
        CHECK_THROWS_AS(parse_seconds("--duration", bad, false), usage_error);
}

TEST_CASE("the command line is validated as a whole", "[cli]") {
    const char *ok[] = {"ipchost", "--plugin", "pipe,socket.tcp", "--size",   "64K", "-d",
                        "0.5",     "--opt",    "pipe_size=1M",    "--format", "json"};
    auto cmd = parse_command_line(11, ok);
    CHECK(cmd.plugins == std::vector<std::string>{"pipe", "socket.tcp"});
    CHECK(cmd.sizes == std::vector<std::uint64_t>{65536});
    CHECK(cmd.case_defaults.duration_s == 0.5);
    CHECK(cmd.modes.size() == 2);
    CHECK(cmd.format == ipcbench::report::output_format::json);

    const char *unknown[] = {"ipchost", "--bogus"};
    CHECK_THROWS_WITH(parse_command_line(2, unknown), Catch::Contains("bogus"));
    const char *mode[] = {"ipchost", "--mode", "fast"};
    CHECK_THROWS_WITH(parse_command_line(3, mode), Catch::Contains("throughput, latency or both"));
    const char *html_run[] = {"ipchost", "--format", "html"};
    CHECK_THROWS_WITH(parse_command_line(3, html_run), Catch::Contains("expected table"));
    const char *html_report[] = {"ipchost", "report", "r.json", "--format", "html"};
    CHECK(parse_command_line(5, html_report).format == ipcbench::report::output_format::html);
    const char *format[] = {"ipchost", "--format", "xml"};
    CHECK_THROWS_WITH(parse_command_line(3, format),
                      Catch::Contains("table, json, csv, markdown or jsonl"));
    const char *opt[] = {"ipchost", "--opt", "novalue"};
    CHECK_THROWS_WITH(parse_command_line(3, opt), Catch::Contains("KEY=VALUE"));
}

TEST_CASE("did you mean: the nearest known name within a typo's reach, none beyond it", "[cli]") {
    using ipcbench::text::did_you_mean;
    const std::vector<std::string> known = {"--size", "--streams", "--duration", "--warmup"};
    CHECK(did_you_mean("--sise", known) == " (did you mean '--size'?)");
    CHECK(did_you_mean("--STREAMS", known).empty());  // case only: nothing to correct
    CHECK(did_you_mean("--durtaion", known) == " (did you mean '--duration'?)");
    CHECK(did_you_mean("--frobnicate", known).empty());  // far from every name
    CHECK(did_you_mean("", known).empty());
    CHECK(did_you_mean("pipe.fifoo", {"pipe.fifo", "pipe.anon"}) == " (did you mean 'pipe.fifo'?)");
}
