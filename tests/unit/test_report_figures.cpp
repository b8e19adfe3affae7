// Figures a report derives, on synthetic input: the --cv-warn threshold and the histogram CSV's
// buckets (machine-independent: no run behind them).
#include <catch2/catch.hpp>

#include <sstream>

#include "model/case_result.hpp"
#include "report/case_warnings.hpp"
#include "report/csv_report.hpp"
#include "report/repetition_summary.hpp"
#include "report/run_report.hpp"

using namespace ipcbench::report;

namespace {

case_result repeated(const std::vector<double> &bytes_per_sec) {
    case_result r;
    r.settings.transport_id = "pipe.fifo";
    r.settings.mode = ipcbench::model::measure_mode::throughput;
    r.settings.size_bytes = 1024;
    for (double b : bytes_per_sec) {
        case_result rep = r;
        rep.throughput = throughput_figures{b, b / 1024};
        r.repetitions.push_back(rep);
    }
    return r;
}

bool warns_about(const case_result &r, const std::string &figure) {
    for (const auto &w : r.warnings)
        if (w.rfind(figure + " varies by", 0) == 0) return true;
    return false;
}

}  // namespace

TEST_CASE("cv-warn: warns exactly when the spread passes the threshold", "[report]") {
    // 0.8, 1.0, 1.2 GB/s: mean 1.0, sample sd 0.2, cv 20 %.
    auto noisy = repeated({0.8e9, 1.0e9, 1.2e9});
    summarize_repetitions(noisy, 0.19);
    CHECK(warns_about(noisy, "bytes_per_sec"));
    CHECK(noisy.throughput->bytes_per_sec == Approx(1.0e9));  // the median
    auto tolerated = repeated({0.8e9, 1.0e9, 1.2e9});
    summarize_repetitions(tolerated, 0.21);
    CHECK_FALSE(warns_about(tolerated, "bytes_per_sec"));
    auto steady = repeated({1.0e9, 1.0e9, 1.0e9});
    summarize_repetitions(steady, 0.001);
    CHECK_FALSE(warns_about(steady, "bytes_per_sec"));
    CHECK(steady.repeat_count == 3);
}

TEST_CASE("the histogram CSV puts each value in its own bucket, counts and cumulates right",
          "[report]") {
    run_report report;
    case_result r;
    r.settings.transport_id = "pipe.fifo";
    r.settings.mode = ipcbench::model::measure_mode::latency;
    r.direction = ipcbench::model::traffic_direction::forward;
    r.settings.size_bytes = 32;
    r.latency = latency_figures{};
    r.latency->kind = "round_trip";
    for (int i = 0; i < 10; ++i) r.histogram.record(1000);
    for (int i = 0; i < 5; ++i) r.histogram.record(5000);
    r.histogram.record(1'000'000);
    report.results.push_back(r);
    std::istringstream csv(histograms_to_csv(report));
    std::string line;
    std::getline(csv, line);  // header
    std::vector<std::vector<std::string>> rows;
    while (std::getline(csv, line)) {
        std::vector<std::string> cells;
        std::stringstream cells_in(line);
        for (std::string c; std::getline(cells_in, c, ',');) cells.push_back(c);
        REQUIRE(cells.size() == 9);
        rows.push_back(cells);
    }
    REQUIRE(rows.size() == 3);
    const double tolerance = ipcbench::stats::latency_histogram::relative_error;
    const double values[] = {1000, 5000, 1'000'000};
    const char *counts[] = {"10", "5", "1"};
    const double cumulative[] = {62.5, 93.75, 100};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        INFO("row " << i);
        CHECK(std::stod(rows[i][6]) == Approx(values[i]).epsilon(tolerance));
        CHECK(rows[i][7] == counts[i]);
        CHECK(std::stod(rows[i][8]) == Approx(cumulative[i]));
    }
}

TEST_CASE("the placement warning: shared and busy and not asked for", "[report]") {
    auto result = [](double share, double cpu_each, int sender_cpu, int receiver_cpu) {
        case_result r;
        r.settings.transport_id = "socket.unix";
        r.settings.affinity = {sender_cpu, receiver_cpu};
        r.sender.cpu_percent = r.receiver.cpu_percent = cpu_each;
        r.placement = placement_figures{25, share, 3, 4};
        warn_about_placement(r);
        return r.warnings;
    };
    const auto warned = result(0.5, 60, -1, -1);
    REQUIRE(warned.size() == 1);
    CHECK_THAT(warned[0], Catch::Contains("sender and receiver ran on the same CPU for 50%") &&
                              Catch::Contains("sender moved 3 times, receiver 4") &&
                              Catch::Contains("--affinity"));
    CHECK(result(0.1, 60, -1, -1).empty());  // rarely together
    CHECK(result(0.5, 10, -1, -1).empty());  // together, but mostly idle
    CHECK(result(1.0, 60, 0, 0).empty());    // asked for with --affinity 0,0
    CHECK(result(0.5, 60, 0, 1).size() == 1);
}
