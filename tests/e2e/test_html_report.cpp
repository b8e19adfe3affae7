// `ipchost report` renders a self-contained page; loaded in a real browser (headless Chromium)
// its charts are there and not empty.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "support/agent_process.hpp"
#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;

namespace {

// The DOM of `page` as headless Chromium built it, after parsing and layout.
ipcbench::test::process_output chromium_dom(const std::string &page, const std::string &profile) {
    return ipcbench::test::run_process(
        {CHROMIUM_PATH, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--user-data-dir=" + profile, "--dump-dom", "file://" + page},
        {}, 90);
}

std::ptrdiff_t count_of(const std::string &text, const std::string &pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(text.begin(), text.end(), re),
                         std::sregex_iterator());
}

}  // namespace

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
    auto dom = chromium_dom(page, tmp.path() + "/profile");
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

TEST_CASE("a fleet's report shows a source x destination heatmap in Chromium, nodes named",
          "[report][fleet]") {
    if (std::string(CHROMIUM_PATH).empty())
        IPCBENCH_SKIP("no chromium here (scripts/install-deps.sh --test, then configure again)");
    using ipcbench::test::agent;
    agent a({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
             "node=n1"}),
        b({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
           "node=n2"}),
        c({"--token", "s3cret-4f1c9e7a2b8d6053", "--allow-peer", "127.0.0.0/8", "--label",
           "node=n3"});
    ipcbench::test::temp_dir tmp;
    const std::string results = tmp.path() + "/fleet.json", page = tmp.path() + "/fleet.html";
    const auto fleet = run_ipchost({"fleet",     "--agent",    a.address(),
                                    "--agent",   b.address(),  "--agent",
                                    c.address(), "--token",    "s3cret-4f1c9e7a2b8d6053",
                                    "--plugin",  "socket.tcp", "--size",
                                    "1K",        "--duration", "0.1",
                                    "--warmup",  "0",          "--format",
                                    "json",      "--output",   results},
                                   {}, 120);
    INFO(fleet.err);
    REQUIRE(fleet.exit_code == 0);
    REQUIRE(run_ipchost({"report", results, "--output", page}).exit_code == 0);
    const auto dom = chromium_dom(page, tmp.path() + "/profile");
    INFO(dom.err.substr(0, 2000));
    REQUIRE(dom.exit_code == 0);
    CHECK(dom.out.find("Source \xc3\x97 destination") != std::string::npos);  // the &times;
    // Throughput MB/s, round trip p50 and p99: a 3 x 3 table each, 6 shaded cells (the
    // diagonal is no pair), every agent heading its row and column with its node.
    CHECK(count_of(dom.out, "<table class=\"grid heatmap\">") == 3);
    CHECK(count_of(dom.out, "<td style=\"background:hsl") == 3 * 6);
    for (const auto *node : {"n1", "n2", "n3"})
        CHECK(count_of(dom.out, std::string("<small>node=") + node + "</small>") == 3 * 2);
}

TEST_CASE("charts never give two lines one colour, and a kit's series names who ran it",
          "[report]") {
    if (std::string(CHROMIUM_PATH).empty())
        IPCBENCH_SKIP("no chromium here (scripts/install-deps.sh --test, then configure again)");
    ipcbench::test::temp_dir tmp;
    const std::string results = tmp.path() + "/r.json", many = tmp.path() + "/many.json",
                      page = tmp.path() + "/page.html";
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--mode", "both", "--duration",
                            "0.05", "--warmup", "0", "--format", "json", "--output", results});
    REQUIRE(run.exit_code == 0);
    std::ifstream in(results);
    nlohmann::json doc = nlohmann::json::parse(in);
    nlohmann::json throughput, latency;
    for (const auto &r : doc.at("results")) (r.at("mode") == "latency" ? latency : throughput) = r;
    REQUIRE(!throughput.is_null());
    REQUIRE(!latency.is_null());
    // Three readers of one transport and size (native, a Go and a Python kit), and a latency sweep
    // of 24 sizes: more lines than the palette has colours.
    doc["results"] = nlohmann::json::array();
    for (const char *kit : {"native", "go", "python"}) {
        nlohmann::json r = throughput;
        r["receiver"]["implementation"] = kit;
        r["receiver"]["runtime"] = std::string(kit) == "native" ? "" : std::string(kit) + " 1.0";
        r["settings"]["receiver_impl"] = kit;
        doc["results"].push_back(r);
    }
    for (int i = 0; i < 24; ++i) {
        nlohmann::json r = latency;
        r["message_size"] = 64 + 8 * i;
        r["settings"]["size_bytes"] = 64 + 8 * i;
        doc["results"].push_back(r);
    }
    std::ofstream(many) << doc.dump();
    auto report = run_ipchost({"report", many, "--output", page});
    INFO(report.err);
    REQUIRE(report.exit_code == 0);
    const auto dom = chromium_dom(page, tmp.path() + "/profile");
    REQUIRE(dom.exit_code == 0);
    // Each kit's line is named by who ran it (a browser may write the arrow's ">" as &gt; in an
    // attribute), and no two lines of one chart share a colour.
    const std::string serialised = std::regex_replace(dom.out, std::regex("&gt;"), ">");
    for (const char *label :
         {"data-series=\"pipe.fifo\"", "data-series=\"pipe.fifo [native -> go (go 1.0)]\"",
          "data-series=\"pipe.fifo [native -> python (python 1.0)]\""}) {
        INFO(label);
        CHECK(serialised.find(label) != std::string::npos);
    }
    const std::regex svg_block("<svg class=\"chart\"[\\s\\S]*?</svg>");
    const std::regex stroke("<polyline[^>]*stroke=\"(#[0-9a-f]{6})\"");
    std::size_t charts = 0, lines = 0;
    for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), svg_block);
         it != std::sregex_iterator(); ++it) {
        const std::string chart = it->str();
        std::set<std::string> colours;
        std::size_t here = 0;
        for (auto s = std::sregex_iterator(chart.begin(), chart.end(), stroke);
             s != std::sregex_iterator(); ++s, ++here)
            colours.insert((*s)[1]);
        CHECK(colours.size() == here);
        lines += here;
        ++charts;
    }
    CHECK(lines == 3 + 3 + 24);  // MB/s and messages/s: 3 lines each; the latency sweep: 24
    // The 24 latency lines: two small multiples of 12, titled as such.
    CHECK(dom.out.find("(1 of 2)") != std::string::npos);
    CHECK(dom.out.find("(2 of 2)") != std::string::npos);
    CHECK(charts == 2 + 1 + 2);  // MB/s, messages/s, CPU per MB (bars), latency in two
}
