// The fleet's source x destination heatmaps: one cell per pair, and the outliers marked by the
// fleet's own median and MAD, never by a fixed threshold.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "report/fleet_heatmap.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "support/process_runner.hpp"

using namespace ipcbench;

namespace {

report::case_result fleet_row(const std::string &src, const std::string &dst, double mb_per_s) {
    report::case_result r;
    r.plugin = "socket";
    r.settings.transport_id = "socket.tcp";
    r.settings.size_bytes = 1024;
    r.status = report::case_status::ok;
    model::throughput_figures t;
    t.bytes_per_sec = mb_per_s * 1e6;
    r.throughput = t;
    r.fleet = model::fleet_place{src, dst, {}, {}, 1, 1};
    return r;
}

// Five agents a..e: every pair near 1000 MB/s, the pair b -> c at 200, and e slow in every
// pair it is in (300), one pair (d -> a) failed.
report::run_report fleet_report(double scale = 1) {
    report::run_report rep;
    const std::vector<std::string> agents = {"a", "b", "c", "d", "e"};
    int k = 0;
    for (const auto &s : agents)
        for (const auto &d : agents) {
            if (s == d) continue;
            double v = 1000 + 10 * (k++ % 5);
            if (s == "b" && d == "c") v = 200;
            if (s == "e" || d == "e") v = 300;
            auto r = fleet_row(s, d, v * scale);
            if (s == "e") r.fleet->source_labels = {{"node", "n5"}, {"zone", "z<1>"}};
            if (d == "e") r.fleet->destination_labels = {{"node", "n5"}, {"zone", "z<1>"}};
            if (s == "d" && d == "a") {
                r.status = report::case_status::failed;
                r.throughput.reset();
                r.error = "the agent at a refused: wrong token";
            }
            rep.results.push_back(r);
        }
    return rep;
}

}  // namespace

TEST_CASE("a fleet heatmap has a cell per pair and marks the pairs and agents far from the median",
          "[fleet][report]") {
    const auto maps = report::fleet_heatmaps(fleet_report());
    REQUIRE(maps.size() == 1);
    const auto &m = maps[0];
    CHECK(m.title == "socket.tcp 1 KiB throughput, MB/s");
    CHECK(m.agents == std::vector<std::string>{"a", "b", "c", "d", "e"});
    CHECK(m.values.size() == 19);
    CHECK(m.failed.count({"d", "a"}) == 1);
    CHECK(m.values.at({"a", "b"}) == Approx(1000).margin(50));
    CHECK(m.outlier_pairs.count({"b", "c"}) == 1);
    CHECK(m.outlier_pairs.count({"a", "b"}) == 0);
    CHECK(m.outlier_pairs.count({"e", "a"}) == 1);  // 300 against a median near 1000
    CHECK(m.outlier_agents.count("e") == 1);
    CHECK(m.outlier_agents.count("b") == 0);  // one slow pair does not make its agent slow
    const std::string text = report::heatmaps_text(maps, false);
    CHECK_THAT(text, Catch::Contains("200 !"));
    CHECK_THAT(text, Catch::Contains("failed"));
    CHECK_THAT(text, Catch::Contains("outlier agent: e"));
    const std::string html = report::to_html(fleet_report());
    CHECK_THAT(html, Catch::Contains("Source &times; destination"));
    CHECK_THAT(html, Catch::Contains("class=\"outlier\""));
    CHECK_THAT(html, Catch::Contains("title=\"the agent at a refused: wrong token\""));
    // An agent's labels (the node it runs on) stand beside its address, escaped.
    CHECK(m.agent_labels.at("e") == "node=n5 zone=z<1>");
    CHECK(m.agent_labels.count("a") == 0);
    CHECK_THAT(text, Catch::Contains("e node=n5 zone=z<1>"));
    CHECK_THAT(html, Catch::Contains("<th>e<br><small>node=n5 zone=z&lt;1&gt;</small></th>"));
}

TEST_CASE("a fleet all alike marks nothing, and a run without a fleet has no heatmap",
          "[fleet][report]") {
    report::run_report same;
    for (const auto &[s, d] : std::vector<std::pair<std::string, std::string>>{
             {"a", "b"}, {"b", "a"}, {"a", "c"}, {"c", "a"}, {"b", "c"}, {"c", "b"}})
        same.results.push_back(fleet_row(s, d, 500));
    const auto maps = report::fleet_heatmaps(same);
    REQUIRE(maps.size() == 1);
    CHECK(maps[0].outlier_pairs.empty());
    CHECK(maps[0].outlier_agents.empty());
    // A healthy fleet's spread: the pairs within 0.3 % of each other but c -> b 6 % faster,
    // 27 scaled MADs out yet within 10 % of the median: nothing an operator acts on.
    report::run_report close;
    for (const auto &[s, d, v] :
         std::vector<std::tuple<std::string, std::string, double>>{{"a", "b", 1000},
                                                                   {"b", "a", 1002},
                                                                   {"a", "c", 999},
                                                                   {"c", "a", 1001},
                                                                   {"b", "c", 1003},
                                                                   {"c", "b", 1060},
                                                                   {"a", "d", 998},
                                                                   {"d", "a", 1000},
                                                                   {"b", "d", 1001},
                                                                   {"d", "b", 999},
                                                                   {"c", "d", 1002},
                                                                   {"d", "c", 1000}})
        close.results.push_back(fleet_row(s, d, v));
    const auto near = report::fleet_heatmaps(close);
    CHECK(near[0].values.at({"c", "b"}) - near[0].median > 20 * near[0].scaled_mad);
    CHECK(near[0].outlier_pairs.empty());
    CHECK(near[0].outlier_agents.empty());
    auto plain = same;
    for (auto &r : plain.results) r.fleet.reset();
    CHECK(report::fleet_heatmaps(plain).empty());
}

TEST_CASE("ipchost compare matches two fleet runs pair by pair", "[fleet][report]") {
    test::temp_dir dir;
    auto write = [&](const std::string &name, const report::run_report &rep) {
        std::ofstream(dir.path() + "/" + name) << report::to_json(rep).dump();
        return dir.path() + "/" + name;
    };
    auto base = fleet_report();
    auto slower = fleet_report();
    for (auto &r : slower.results)
        if (r.throughput && r.fleet->source == "a" && r.fleet->destination == "c")
            r.throughput->bytes_per_sec /= 2;
    const auto run = test::run_ipchost(
        {"compare", write("base.json", base), write("new.json", slower), "--format", "json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto doc = nlohmann::json::parse(run.out);
    bool halved = false, others_same = true;
    for (const auto &row : doc.at("comparisons")) {
        if (row.at("figure") != "bytes_per_sec") continue;
        const std::string c = row.at("case");
        const double ratio = row.at("ratio");
        if (c.find("a -> c") != std::string::npos)
            halved = ratio == Approx(0.5);
        else
            others_same = others_same && ratio == Approx(1);
    }
    CHECK(halved);
    CHECK(others_same);
}
