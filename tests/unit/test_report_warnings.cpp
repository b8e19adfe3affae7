// What a table says under and beside its rows, on synthetic results: warnings grouped by kind
// with the cases they cover (who ran each side named), the paced run that missed its rate, the
// spread's advice leaving out what the run did, and a setting that tells rows apart shown as a
// column of its own.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "model/case_result.hpp"
#include "report/case_warnings.hpp"
#include "report/repetition_summary.hpp"
#include "report/run_report.hpp"
#include "report/table_report.hpp"
#include "report/warning_groups.hpp"

using namespace ipcbench::report;
namespace model = ipcbench::model;

namespace {

case_result tcp_case(std::uint64_t size) {
    case_result r;
    r.plugin = "socket";
    r.settings.transport_id = "socket.tcp";
    r.settings.mode = model::measure_mode::throughput;
    r.settings.size_bytes = size;
    r.throughput = throughput_figures{1e9, 1e9 / static_cast<double>(size)};
    r.sender.cpu_percent = r.receiver.cpu_percent = 60;
    return r;
}

// The lines of the Warnings section of a table.
std::vector<std::string> warning_lines(const run_report &report) {
    std::istringstream in(to_table(report, false, table_layout{1000, true, {}}));
    std::vector<std::string> lines;
    bool in_warnings = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "Warnings")
            in_warnings = true;
        else if (in_warnings && !line.empty())
            lines.push_back(line);
    }
    return lines;
}

// The header line of the throughput table and its first row.
std::vector<std::string> header_and_row(const run_report &report) {
    std::istringstream in(to_table(report, false, table_layout{1000, true, {}}));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("transport", 0) == 0 || (!lines.empty() && lines.size() < 3))
            lines.push_back(line);
    REQUIRE(lines.size() >= 2);
    return lines;
}

}  // namespace

TEST_CASE("warnings of one kind are one line with the cases they cover and the range of numbers",
          "[report]") {
    run_report report;
    for (auto [size, share] :
         {std::pair<std::uint64_t, double>{1024, 0.52}, {65536, 0.97}, {32, 0.60}}) {
        auto r = tcp_case(size);
        r.placement = placement_figures{25, share, 3, 4};
        warn_about_placement(r);
        REQUIRE(r.warnings.size() == 1);
        report.results.push_back(r);
    }
    auto kit = tcp_case(4096);
    kit.sender.implementation = "go";
    kit.receiver.implementation = "python";
    kit.warnings.push_back("12 messages lost");
    report.results.push_back(kit);
    const auto lines = warning_lines(report);
    INFO(to_table(report, false, table_layout{1000, true, {}}));
    REQUIRE(lines.size() == 3);  // the shared CPU once, the loss, the advice said once
    CHECK_THAT(lines[0],
               Catch::Contains("ran on the same CPU for 52\u201397% of the timed window") &&
                   Catch::Contains("(3 cases: socket.tcp 1 KiB throughput, socket.tcp 64 "
                                   "KiB throughput, socket.tcp 32 B throughput)"));
    CHECK_THAT(lines[1], Catch::StartsWith("socket.tcp 4 KiB throughput [go -> python]: 12 "
                                           "messages lost"));
    CHECK_THAT(lines[2], Catch::StartsWith("Sharing a CPU: ") && Catch::Contains("--affinity"));
    // A number they share stays one number: the migrations were 3 and 4 in every case.
    CHECK_THAT(lines[0], Catch::Contains("sender moved 3 times, receiver 4"));
}

TEST_CASE("group_warnings: kinds in order of appearance, a case named once a kind", "[report]") {
    auto a = tcp_case(1024), b = tcp_case(2048);
    a.warnings = {"3 messages lost", "sender (native): 40% CPU measured from outside"};
    b.warnings = {"7 messages lost"};
    b.direction = model::traffic_direction::reverse;
    const auto groups = group_warnings({&a, &b, &a});
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].text == "3\u20137 messages lost");
    CHECK(groups[0].cases == std::vector<std::string>{"socket.tcp 1 KiB throughput",
                                                      "socket.tcp 2 KiB throughput reverse"});
    CHECK(groups[1].text == "sender (native): 40% CPU measured from outside");
    CHECK(groups[1].cases.size() == 1);
}

TEST_CASE("a paced case that got less than 95 % of its rate says so, with the rate it got",
          "[report]") {
    auto paced = [](double rate, int streams, double got) {
        auto r = tcp_case(1024);
        r.settings.rate_per_s = rate;
        r.settings.streams = streams;
        r.throughput->messages_per_sec = got;
        warn_about_missed_rate(r);
        return r.warnings;
    };
    const auto missed = paced(10, 10000, 72500);  // README's 10,000 streams at 10/s
    REQUIRE(missed.size() == 1);
    CHECK_THAT(missed[0], Catch::StartsWith("paced at 100000 messages/s, the receiver got 72500 "
                                            "(72.5%)"));
    CHECK(paced(10, 10000, 95500).empty());
    CHECK(paced(0, 1, 10).empty());  // not paced
    auto latency = tcp_case(64);
    latency.settings.mode = model::measure_mode::latency;
    latency.settings.rate_per_s = 1000;
    latency.throughput->messages_per_sec = 1;
    warn_about_missed_rate(latency);
    CHECK(latency.warnings.empty());
}

TEST_CASE("the spread warning advises only what the run did not do", "[report]") {
    auto spread = [](int cpu, std::uint64_t count) {
        auto r = tcp_case(1024);
        r.settings.affinity = {cpu, cpu < 0 ? -1 : cpu + 1};
        r.settings.count = count;
        for (double b : {0.8e9, 1.0e9, 1.2e9}) {
            auto rep = r;
            rep.throughput = throughput_figures{b, b / 1024};
            r.repetitions.push_back(rep);
        }
        summarize_repetitions(r, 0.1);
        REQUIRE(r.warnings.size() == 1);
        return r.warnings[0];
    };
    CHECK_THAT(spread(-1, 0), Catch::Contains("pin with --affinity, lengthen --duration"));
    CHECK_THAT(spread(0, 0), !Catch::Contains("--affinity") && Catch::Contains("--duration"));
    CHECK_THAT(spread(0, 1000), !Catch::Contains("--duration") && Catch::Contains("--count"));
}

TEST_CASE("a setting that tells rows apart becomes a column but one they share does not",
          "[report]") {
    run_report report;
    auto one = tcp_case(1024), two = tcp_case(1024);
    one.settings.batch = 1;
    two.settings.batch = 16;
    report.results = {one, two};
    auto t = header_and_row(report);
    CHECK_THAT(t[0], Catch::Contains("batch"));
    CHECK_THAT(t[0], !Catch::Contains("rate/s"));
    two.settings.batch = 1;
    one.settings.rate_per_s = 1000;
    two.settings.rate_per_s = 50000;
    report.results = {one, two};
    t = header_and_row(report);
    CHECK_THAT(t[0], Catch::Contains("rate/s") && !Catch::Contains("batch"));
    CHECK_THAT(t[1], Catch::Contains("1.0k"));
    one.direction = model::traffic_direction::reverse;  // -R: no row looks like a forward one
    report.results = {one};
    t = header_and_row(report);
    CHECK_THAT(t[0], Catch::Contains("direction"));
    CHECK_THAT(t[1], Catch::Contains("reverse"));
}

TEST_CASE("a 120-column table that leaves figures out keeps the setting that tells rows apart",
          "[report]") {
    run_report report;
    auto forward = tcp_case(65536), reverse = tcp_case(65536);
    for (auto *r : {&forward, &reverse}) {
        r->sender.max_rss_kib = r->receiver.max_rss_kib = 8400;
        r->placement = placement_figures{};
        r->integrity.messages_received = 30000;
    }
    reverse.direction = model::traffic_direction::reverse;  // --bidir's two rows
    report.results = {forward, reverse};
    const auto header_and_rows = [&report] {
        std::istringstream in(to_table(report, false, table_layout{}));
        std::vector<std::string> lines;
        bool left_out = false;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("transport", 0) == 0 || line.rfind("socket.tcp", 0) == 0)
                lines.push_back(line);
            left_out = left_out || line.find(" more: ") != std::string::npos;
        }
        // Something was left out, so the column had to win its place.
        REQUIRE(left_out);
        return lines;
    };
    auto t = header_and_rows();
    REQUIRE(t.size() == 3);
    CHECK_THAT(t[0], Catch::Contains("direction"));
    CHECK_THAT(t[1], Catch::EndsWith("forward") || Catch::Contains(" forward "));
    CHECK_THAT(t[2], Catch::EndsWith("reverse") || Catch::Contains(" reverse "));
    report.results = {reverse};  // -R alone: one row, and it is not a forward one
    t = header_and_rows();
    REQUIRE(t.size() == 2);
    CHECK_THAT(t[0], Catch::Contains("direction"));
    CHECK_THAT(t[1], Catch::Contains(" reverse"));
}

TEST_CASE("the table's first lines say which hosts ran what and what may have moved the figures",
          "[report]") {
    run_report report;
    report.results = {tcp_case(1024)};
    report.peer = "10.0.0.2:7878";
    report.from = "10.0.0.3:7878";
    report.conditions.steal_percent = 3.25;
    report.conditions.sample_s = 2;
    report.conditions.busiest = {{4242, "stress", 97}};
    const std::string text = to_table(report, false, table_layout{1000, true, {}});
    CHECK_THAT(text, Catch::Contains("the client side (sender, pinger) on agent 10.0.0.3:7878, "
                                     "the server side (receiver, ponger) on agent 10.0.0.2:7878"));
    CHECK_THAT(text, Catch::Contains("what may have moved its figures: steal 3.2%, 1 busy other "
                                     "process (stress 97%)"));
    report.from.clear();
    report.conditions = {};
    const std::string local_client = to_table(report, false, table_layout{1000, true, {}});
    CHECK_THAT(local_client, Catch::Contains("the client side (sender, pinger) on this host"));
    CHECK_THAT(local_client, !Catch::Contains("may have moved"));
}
