// ipchost ab, the gate of compare, trend and the command line around them, end to end. Nothing
// here depends on the machine's speed: the A/B slowdown is a hundredfold (a send that spins
// 200 µs), the A/A only has to not fail, and the files compare and trend read are synthetic.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

const std::vector<std::string> slowdown_case = {"--plugin-dir", SLOWDOWN_PLUGIN_DIR,
                                                "--plugin",     "slowdown.stream",
                                                "--mode",       "throughput",
                                                "--size",       "1K",
                                                "--duration",   "0.1",
                                                "--warmup",     "0",
                                                "--quiet",      "--format",
                                                "json"};

ipcbench::test::process_output ab(std::vector<std::string> extra) {
    std::vector<std::string> args = {"ab"};
    args.insert(args.end(), slowdown_case.begin(), slowdown_case.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_ipchost(args, {}, 170);
}

const json *row_of(const json &doc, const std::string &figure) {
    for (const auto &r : doc.at("comparisons"))
        if (r.at("figure") == figure) return &r;
    return nullptr;
}

// A result file of one throughput case whose MB/s and CPU samples are the given ones.
json synthetic_run(const json &model, const std::vector<double> &mb_per_s, double cpu_percent,
                   const std::string &label = "") {
    json doc = model;
    auto &r = doc.at("results").at(0);
    json samples = json::array(), messages = json::array(), cpu = json::array();
    for (double v : mb_per_s) {
        samples.push_back(v * 1e6);
        messages.push_back(v * 1e6 / 1024);
        cpu.push_back(cpu_percent);
    }
    r["statistics"]["bytes_per_sec"]["samples"] = samples;
    r["statistics"]["messages_per_sec"]["samples"] = messages;
    r["statistics"]["sender_cpu_percent"]["samples"] = cpu;
    r["throughput"]["bytes_per_sec"] = mb_per_s[mb_per_s.size() / 2] * 1e6;
    r["throughput"]["messages_per_sec"] = mb_per_s[mb_per_s.size() / 2] * 1e6 / 1024;
    r["sender"]["cpu_percent"] = cpu_percent;
    if (!label.empty()) doc["labels"] = {{"commit", label}};
    return doc;
}

std::string write(const ipcbench::test::temp_dir &dir, const std::string &name, const json &doc) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path) << doc.dump();
    return path;
}

// One real run with --repeat 5 as the model of a file (its shape, its settings).
json model_run(const ipcbench::test::temp_dir &tmp) {
    const std::string path = tmp.path() + "/model.json";
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--mode", "throughput", "--size", "1K",
                            "--repeat", "5", "--duration", "0.05", "--warmup", "0", "--format",
                            "json", "--output", path});
    REQUIRE(run.exit_code == 0);
    std::ifstream in(path);
    return json::parse(in);
}

}  // namespace

TEST_CASE("ab: a hundredfold slowdown fails the gate, the same build does not, ABBA rounds",
          "[gate]") {
    // new's sends spin 200 µs each: far slower than any load can make the plain one.
    auto slow =
        ab({"--rounds", "6", "--new-arg=--opt=cost_ns=200000", "--fail-on-regression", "5"});
    INFO(slow.out << slow.err);
    REQUIRE(slow.exit_code == 1);
    const json doc = json::parse(slow.out);
    CHECK(doc.at("a_a") == false);
    CHECK(doc.at("new").at("args") == json::array({"--opt=cost_ns=200000"}));
    REQUIRE(doc.at("rounds").size() == 6);
    for (std::size_t i = 0; i < 6; ++i)  // A B, B A, A B ...: drift hits both sides
        CHECK(doc.at("rounds")[i].at("first") == (i % 2 == 0 ? "base" : "new"));
    const json *mb = row_of(doc, "bytes_per_sec");
    REQUIRE(mb != nullptr);
    CHECK(mb->at("verdict") == "slower");
    CHECK(mb->at("gated") == true);
    CHECK(mb->at("new").get<double>() < 0.5 * mb->at("base").get<double>());  // the new side
    CHECK(mb->at("interval").at("high").get<double>() < 0.95);
    CHECK_THAT(slow.err, Catch::Contains("gate failed") && Catch::Contains("slower: "));
    // The same slowdown on the base side: a speed-up, which never fails the gate.
    auto fast =
        ab({"--rounds", "6", "--base-arg=--opt=cost_ns=200000", "--fail-on-regression", "5"});
    INFO(fast.err);
    CHECK((fast.exit_code == 0 || fast.exit_code == 3));
    const json faster = json::parse(fast.out);
    const json *up = row_of(faster, "bytes_per_sec");
    REQUIRE(up != nullptr);
    CHECK(up->at("verdict") == "faster");
}

TEST_CASE("ab: an A/A run reports the noise floor and never fails its gate", "[gate]") {
    auto same = ab({"--rounds", "6", "--fail-on-regression", "5"});
    INFO(same.out << same.err);
    CHECK((same.exit_code == 0 || same.exit_code == 3));  // equivalent, or too noisy to say
    const json doc = json::parse(same.out);
    CHECK(doc.at("a_a") == true);
    const json *mb = row_of(doc, "bytes_per_sec");
    REQUIRE(mb != nullptr);
    CHECK(mb->at("verdict") != "slower");
    CHECK(mb->at("noise_percent").get<double>() > 0);
    CHECK(mb->at("base_samples") == 6);
    // The text form says what it is.
    auto text = run_ipchost({"ab", "--plugin-dir", SLOWDOWN_PLUGIN_DIR, "--plugin",
                             "slowdown.stream", "--mode", "throughput", "--size", "1K",
                             "--duration", "0.05", "--warmup", "0", "--rounds", "2", "--quiet"},
                            {}, 120);
    INFO(text.err);
    CHECK(text.exit_code == 0);  // no gate asked: the verdicts are information
    CHECK_THAT(text.out, Catch::Contains("A/A: both sides ran the same") &&
                             Catch::Contains("2 rounds in ABBA order") &&
                             Catch::Contains("too few rounds for a 95 % interval"));
}

TEST_CASE("ab: a failing side, a refused program and ab's own options are errors that say why",
          "[gate]") {
    // A side whose run fails (an option its transport refuses): stopped, named, exit 1.
    auto bad = ab({"--rounds", "2", "--new-arg=--opt=cost_ns=-5"});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("the new side's run ended with exit code 2") &&
                            Catch::Contains("cost_ns"));
    // Sides that ran different cases (another size): nothing matched, and the gate says so.
    auto apart = ab({"--rounds", "2", "--base-arg=--size=2K", "--fail-on-regression", "5"});
    CHECK(apart.exit_code == 1);
    CHECK_THAT(apart.err, Catch::Contains("no case ran on both sides"));
    CHECK_THAT(json::parse(apart.out).at("missing").dump(),
               Catch::Contains("2 KiB") && Catch::Contains("1 KiB"));
    ipcbench::test::temp_dir tmp;
    const std::string open = tmp.path() + "/ipchost";
    std::ofstream(open) << "#!/bin/sh\nexit 0\n";
    std::filesystem::permissions(open, std::filesystem::perms::all);  // 0777: anyone may write
    auto refused = ab({"--base-ipchost", open});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--base-ipchost") && Catch::Contains("refused"));
    auto repeat = ab({"--repeat", "5"});
    CHECK(repeat.exit_code == 2);
    CHECK_THAT(repeat.err, Catch::Contains("--rounds"));
    auto typo = run_ipchost({"ab", "--rounds", "atuo"});
    CHECK(typo.exit_code == 2);
    CHECK_THAT(typo.err, Catch::Contains("or auto") && Catch::Contains("did you mean 'auto'"));
    auto elsewhere = run_ipchost({"--plugin", "pipe.fifo", "--rounds", "4"});
    CHECK(elsewhere.exit_code == 2);
    CHECK_THAT(elsewhere.err, Catch::Contains("--rounds is an option of ipchost ab"));
}

TEST_CASE(
    "compare: the gate on two files passes a faster build with more CPU %, refuses to "
    "pass on one repetition, and names what it could not judge",
    "[gate]") {
    ipcbench::test::temp_dir tmp;
    const json model = model_run(tmp);
    const std::string base =
        write(tmp, "base.json", synthetic_run(model, {100, 101, 102, 103, 104, 105}, 40));
    // 14.6 times the throughput at twice the CPU %: faster, and CPU % is not gated.
    const std::string faster =
        write(tmp, "faster.json", synthetic_run(model, {1460, 1470, 1480, 1490, 1500, 1510}, 80));
    auto pass = run_ipchost({"compare", base, faster, "--fail-on-regression", "5"});
    INFO(pass.out << pass.err);
    CHECK(pass.exit_code == 0);
    CHECK_THAT(pass.out, Catch::Contains("costlier (not gated)") &&
                             Catch::Contains("two files from two runs"));
    CHECK_THAT(pass.err, Catch::Contains("gate passed"));
    // A 75 % drop measured once a side: the gate cannot test it, so it does not pass.
    const std::string one = write(tmp, "one.json", synthetic_run(model, {100}, 40));
    const std::string drop = write(tmp, "drop.json", synthetic_run(model, {25}, 40));
    auto once = run_ipchost({"compare", one, drop, "--fail-on-regression", "5"});
    CHECK(once.exit_code == 3);
    CHECK_THAT(once.err,
               Catch::Contains("gate inconclusive") && Catch::Contains("need at least 5"));
    CHECK_THAT(once.out, Catch::Contains("too few repetitions for a verdict"));
    // Two values a side that straddle the threshold: inconclusive, and how many would decide.
    const std::string edge =
        write(tmp, "edge.json", synthetic_run(model, {88, 92, 96, 100, 104, 108}, 40));
    auto straddle =
        run_ipchost({"compare", base, edge, "--fail-on-regression", "5", "--format", "json"});
    CHECK(straddle.exit_code == 3);
    const json decided = json::parse(straddle.out);
    const json *mb = row_of(decided, "bytes_per_sec");
    REQUIRE(mb != nullptr);
    CHECK(mb->at("verdict") == "inconclusive");
    CHECK(mb->at("interval").at("low").get<double>() < 0.95);
}

TEST_CASE("trend: a change point in a series of labelled runs, named by its commits", "[gate]") {
    ipcbench::test::temp_dir tmp;
    const json model = model_run(tmp);
    std::vector<std::string> files;
    for (int night = 0; night < 12; ++night) {
        const double level = night < 7 ? 100 : 70;  // 30 % slower from the 8th night on
        const double wobble = (night % 3) - 1.0;
        files.push_back(
            write(tmp, "n" + std::to_string(night) + ".json",
                  synthetic_run(model, {level + wobble}, 40, "c" + std::to_string(night))));
    }
    std::vector<std::string> args = {"trend"};
    args.insert(args.end(), files.begin(), files.end());
    auto text = run_ipchost(args);
    INFO(text.out << text.err);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("MB/s: 100.0 -> 70.000") &&
                             Catch::Contains("between commit=c6") &&
                             Catch::Contains("and commit=c7"));
    args.insert(args.end(), {"--format", "json"});
    const json doc = json::parse(run_ipchost(args).out);
    bool found = false;
    for (const auto &c : doc.at("change_points"))
        if (c.at("figure") == "bytes_per_sec") {
            found = true;
            CHECK(c.at("index") == 7);
            CHECK(c.at("change_percent").get<double>() == Approx(-30).margin(2));
        }
    CHECK(found);
    auto few = run_ipchost({"trend", files[0]});
    CHECK(few.exit_code == 2);
    CHECK_THAT(few.err, Catch::Contains("at least 2"));
}

TEST_CASE("a mistyped subcommand or --repeat is answered with what was meant", "[gate]") {
    auto comapre = run_ipchost({"comapre", "a.json", "b.json"});
    CHECK(comapre.exit_code == 2);
    CHECK_THAT(comapre.err,
               Catch::Contains("not a subcommand") && Catch::Contains("did you mean 'compare'"));
    auto atuo = run_ipchost({"--repeat", "atuo"});
    CHECK(atuo.exit_code == 2);
    CHECK_THAT(atuo.err, Catch::Contains("or auto") && Catch::Contains("did you mean 'auto'"));
    auto help = run_ipchost({"compare", "--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("--format") && Catch::Contains("--output") &&
                             Catch::Contains("--threshold"));
}

TEST_CASE(
    "the HTML report says what the table says under it: the run's noise sources and its "
    "warnings",
    "[gate]") {
    ipcbench::test::temp_dir tmp;
    json doc = model_run(tmp);
    doc["conditions"]["steal_percent"] = 7.5;  // a noise source the table names
    doc["conditions"]["sample_s"] = 1.0;
    doc["results"][0]["warnings"] = json::array({"cv of MB/s 23% over the repetitions"});
    const std::string file = write(tmp, "noisy.json", doc);
    auto table = run_ipchost({"report", file, "--format", "table"});
    auto html = run_ipchost({"report", file});
    REQUIRE(html.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("steal 7.5%") && Catch::Contains("cv of MB/s 23%"));
    CHECK_THAT(html.out, Catch::Contains("steal 7.5%") && Catch::Contains("<h2>Warnings</h2>") &&
                             Catch::Contains("cv of MB/s 23%"));
}

TEST_CASE("interval lines come under the run's heading", "[gate]") {
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--mode", "throughput", "--size", "1K",
                            "--duration", "0.2", "--warmup", "0", "--interval", "0.1"});
    REQUIRE(run.exit_code == 0);
    const auto heading = run.out.find("ipcbench ");
    const auto first_interval = run.out.find("[pipe.fifo throughput 1 KiB]");
    REQUIRE(heading != std::string::npos);
    REQUIRE(first_interval != std::string::npos);
    CHECK(heading < first_interval);
}
