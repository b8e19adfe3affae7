// The writer x reader grid (report/impl_grid.cpp): one cell per pair that ran, its figure and
// its ratio to native -> native, computed here from the figures put in.
#include <catch2/catch.hpp>

#include "report/html_report.hpp"
#include "report/impl_grid.hpp"
#include "report/table_report.hpp"

using namespace ipcbench;

namespace {

report::case_result pair_result(const std::string &writer, const std::string &reader,
                                double bytes_per_sec, model::measure_mode mode) {
    report::case_result r;
    r.settings.transport_id = "socket.unix";
    r.settings.size_bytes = 1024;
    r.settings.mode = mode;
    r.settings.sender_impl = writer;
    r.settings.receiver_impl = reader;
    r.sender.implementation = writer;
    r.receiver.implementation = reader;
    if (mode == model::measure_mode::latency) {
        r.latency.emplace();
        r.latency->p50 = static_cast<std::uint64_t>(bytes_per_sec);  // ns, for this test
    } else {
        r.throughput = model::throughput_figures{bytes_per_sec, bytes_per_sec / 1024};
    }
    return r;
}

}  // namespace

TEST_CASE("the writer x reader grid puts each pair's figure and its ratio to native in its cell",
          "[report]") {
    report::run_report run;
    const auto tp = model::measure_mode::throughput;
    run.results.push_back(pair_result("native", "native", 400e6, tp));
    run.results.push_back(pair_result("native", "dotnet", 100e6, tp));
    run.results.push_back(pair_result("dotnet", "native", 300e6, tp));
    auto failed = pair_result("dotnet", "dotnet", 0, tp);
    failed.status = report::case_status::failed;
    run.results.push_back(failed);
    run.results.push_back(pair_result("native", "native", 20000, model::measure_mode::latency));
    run.results.push_back(pair_result("native", "java", 50000, model::measure_mode::latency));
    // A case with one pair only makes no grid.
    auto alone = pair_result("native", "native", 1e9, tp);
    alone.settings.size_bytes = 64;
    run.results.push_back(alone);

    const auto grids = report::impl_grids(run);
    REQUIRE(grids.size() == 2);
    const auto &g = grids[0];
    CHECK(g.writers == std::vector<std::string>{"native", "dotnet"});
    CHECK(g.readers == std::vector<std::string>{"native", "dotnet"});
    CHECK(report::grid_cell(g, "native", "native") == "400");
    CHECK(report::grid_cell(g, "native", "dotnet") == "100 (0.25)");  // 100 / 400
    CHECK(report::grid_cell(g, "dotnet", "native") == "300 (0.75)");
    CHECK(report::grid_cell(g, "dotnet", "dotnet") == "failed");
    const auto &l = grids[1];
    CHECK(!l.higher_is_better);
    CHECK(report::grid_cell(l, "native", "java") == "50.00 (2.50)");  // p50 50 us / 20 us
    CHECK(report::grid_cell(l, "java", "java") == "");                // did not run

    const std::string text = report::to_table(run);
    CHECK_THAT(text, Catch::Contains("socket.unix 1 KiB throughput, MB/s"));
    CHECK_THAT(text, Catch::Contains("100 (0.25)"));
    const std::string html = report::to_html(run);
    CHECK_THAT(html, Catch::Contains("<td class=\"baseline\">400</td>"));
    CHECK_THAT(html, Catch::Contains("<td>300 (0.75)</td>"));
}
