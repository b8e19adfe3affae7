// `ipchost report` renders a self-contained page; loaded in a real browser (headless Chromium)
// its charts are there and not empty.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;

TEST_CASE("the HTML report renders in headless Chromium with non-empty charts", "[report]") {
    if (std::string(CHROMIUM_PATH).empty())
        IPCBENCH_SKIP(
            "no chromium here (apt-get install chromium, or scripts/install-deps.sh "
            "--test, then configure again)");
    ipcbench::test::temp_dir tmp;
    const std::string results = tmp.path() + "/results.json", page = tmp.path() + "/report.html";
    auto run = run_ipchost({"--plugin", "pipe.fifo,socket.unix", "--size", "64,4K", "--duration",
                            "0.1", "--warmup", "0", "--format", "json", "--output", results});
    REQUIRE(run.exit_code == 0);
    auto report = run_ipchost({"report", results, "--output", page});
    REQUIRE(report.exit_code == 0);
    std::ifstream in(page);
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(html.find("<script") == std::string::npos);  // self-contained, nothing to fetch
    CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));

    // The DOM as Chromium built it, after parsing and layout.
    auto dom = ipcbench::test::run_process(
        {CHROMIUM_PATH, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--user-data-dir=" + tmp.path() + "/profile", "--dump-dom",
         "file://" + page},
        {}, 90);
    INFO(dom.err.substr(0, 2000));
    REQUIRE(dom.exit_code == 0);
    const std::regex chart("<svg class=\"chart\"");
    const auto charts = std::distance(std::sregex_iterator(dom.out.begin(), dom.out.end(), chart),
                                      std::sregex_iterator());
    CHECK(charts == 4);  // MB/s, messages/s, CPU per MB, latency percentiles
    // Every line chart has a polyline with points for each transport.
    for (const char *series : {"data-series=\"pipe.fifo\"", "data-series=\"socket.unix\"",
                               "data-series=\"pipe.fifo 64 B\""})
        CHECK(dom.out.find(series) != std::string::npos);
    const std::regex empty_polyline("points=\"\\s*\"");
    CHECK_FALSE(std::regex_search(dom.out, empty_polyline));
    CHECK(dom.out.find("class=\"bar\"") != std::string::npos);
}

TEST_CASE("a forged result file cannot inject markup or stall the report", "[report]") {
    ipcbench::test::temp_dir dir;
    const std::string results = dir.path() + "/r.json", forged = dir.path() + "/forged.json",
                      page = dir.path() + "/page.html";
    auto run =
        run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--mode", "throughput", "--duration",
                     "0.1", "--warmup", "0", "--format", "json", "--output", results});
    REQUIRE(run.exit_code == 0);
    std::ifstream in(results);
    nlohmann::json doc = nlohmann::json::parse(in);
    REQUIRE(doc.at("results").size() == 1);
    nlohmann::json ok = doc["results"][0], bad = ok, zero = ok, huge = ok, unnamed = doc;
    // Free text is escaped; a status or mode outside the model is refused, naming the field.
    bad["transport"] = "<script>alert(1)</script>";
    bad["plugin"] = "<img src=x onerror=alert(2)>";
    bad["error"] = "<b>";
    unnamed["results"][0]["mode"] = "<img src=x onerror=alert(2)>";
    const std::string refused = dir.path() + "/refused.json";
    std::ofstream(refused) << unnamed.dump();
    auto rejected = run_ipchost({"report", refused, "--output", page}, {}, 30);
    CHECK(rejected.exit_code == 2);
    CHECK_THAT(rejected.err, Catch::Contains("'mode' has the unknown value"));
    zero["message_size"] = 0;
    huge["throughput"]["bytes_per_sec"] = 1e308;
    huge["throughput"]["messages_per_sec"] = 1e308;
    doc["results"] = {ok, bad, zero, huge};
    std::ofstream(forged) << doc.dump();
    auto report = run_ipchost({"report", forged, "--output", page}, {}, 30);
    INFO(report.err);
    REQUIRE_FALSE(report.timed_out);
    REQUIRE(report.exit_code == 0);
    std::ifstream html_in(page);
    const std::string html((std::istreambuf_iterator<char>(html_in)),
                           std::istreambuf_iterator<char>());
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK_THAT(html, Catch::Contains("&lt;script&gt;") &&
                         Catch::Contains("Content-Security-Policy") &&
                         Catch::Contains("default-src 'none'"));
}
