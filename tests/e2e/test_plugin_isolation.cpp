// Plugin code never runs in the main ipchost process: probes and workers take every attack of
// tests/fixtures/plugins/hostile_plugin.c, and ipchost keeps its results, its output and its
// process group.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/process_runner.hpp"

using ipcbench::test::run_ipchost;
using nlohmann::json;

namespace {

const std::vector<std::string> hostile_run = {"--plugin-dir", HOSTILE_PLUGIN_DIR,
                                              "--plugin",     "hostile.stream",
                                              "--size",       "64",
                                              "--mode",       "throughput",
                                              "--duration",   "0.1",
                                              "--warmup",     "0",
                                              "--format",     "json"};

// Processes whose command line names `needle` (scoped to this test's own marker).
std::size_t processes_with(const std::string &needle) {
    std::size_t n = 0;
    for (const auto &e : std::filesystem::directory_iterator("/proc")) {
        std::ifstream in(e.path() / "environ");
        std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (env.find(needle) != std::string::npos) ++n;
    }
    return n;
}

}  // namespace

TEST_CASE("a plugin signalling its process group kills only its probe", "[isolation]") {
    auto run = run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--list", "--verbose"},
                           {{"IPCB_HOSTILE", "kill_group"}}, 60);
    INFO(run.out << run.err);
    CHECK(run.signal == 0);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("pipe.fifo"));  // the rest of the list is there
    CHECK_THAT(run.out + run.err, Catch::Contains("ipcb-hostile.so") &&
                                      Catch::Contains("IPCB-LOAD-011") &&
                                      Catch::Contains("SIGTERM"));
}

TEST_CASE("a plugin's output never reaches ipchost's stdout", "[isolation]") {
    auto run = run_ipchost(hostile_run, {{"IPCB_HOSTILE", "spam"}}, 60);
    INFO(run.err.substr(0, 2000));
    REQUIRE(run.exit_code == 0);
    const json doc = json::parse(run.out);  // 4 MiB of 'S' would make this throw
    REQUIRE(doc.at("results").size() == 1);
    CHECK(doc.at("results")[0].at("status") == "ok");
    CHECK(run.err.size() < 512 * 1024);  // forwarded, but capped per worker
    CHECK_THAT(run.err, Catch::Contains("more bytes of output dropped"));
}

TEST_CASE("a plugin changing directory or closing stdio in its entry touches only workers",
          "[isolation]") {
    auto run = run_ipchost(hostile_run, {{"IPCB_HOSTILE", "chdir_close"}}, 60);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(json::parse(run.out).at("results")[0].at("status") == "ok");
}

TEST_CASE("processes a plugin leaves behind are killed and named", "[isolation]") {
    const std::string tag = "IPCB_TEST_TAG=escape-" + std::to_string(getpid());
    auto run = run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--list"},
                           {{"IPCB_HOSTILE", "fork_entry"}, {"IPCB_TEST_TAG", tag.substr(14)}}, 60);
    INFO(run.err);
    CHECK(run.exit_code == 0);
    CHECK_THAT(run.err, Catch::Contains("left process") && Catch::Contains("killed"));
    CHECK(processes_with(tag) == 0);
}

TEST_CASE("remove_address crashing or hanging costs a warning, not the run", "[isolation]") {
    for (const std::string attack : {"remove_segv", "remove_hang"}) {
        INFO(attack);
        ipcbench::test::temp_dir tmp;
        // The receiver dies in the timed phase, so ipchost cleans up with remove_address.
        std::vector<std::string> args = hostile_run;
        args.insert(args.end(), {"--timeout", "3"});
        auto run = run_ipchost(
            args, {{"IPCB_HOSTILE", attack + ",kill_receiver"}, {"TMPDIR", tmp.path()}}, 60);
        INFO(run.err);
        CHECK(run.signal == 0);
        REQUIRE(run.exit_code <= 1);
        const json doc = json::parse(run.out);
        CHECK(doc.at("results").size() == 1);
        CHECK(tmp.entries().empty());  // the run directory went too
    }
}

TEST_CASE("plugin files or folders others can write are refused unloaded", "[isolation]") {
    ipcbench::test::temp_dir dir;
    const std::string copy = dir.path() + "/ipcb-hostile.so";
    std::filesystem::copy_file(std::string(HOSTILE_PLUGIN_DIR) + "/ipcb-hostile.so", copy);
    const std::string marker = dir.path() + "/constructor-ran";
    chmod(copy.c_str(), 0777);
    auto run = run_ipchost({"--plugin-dir", dir.path(), "--list", "--verbose"},
                           {{"IPCB_HOSTILE", "marker"}, {"IPCB_HOSTILE_MARKER", marker}}, 60);
    CHECK_THAT(run.out + run.err,
               Catch::Contains("IPCB-LOAD-013") && Catch::Contains("writable by every user"));
    CHECK_FALSE(std::filesystem::exists(marker));
    chmod(copy.c_str(), 0755);
    chmod(dir.path().c_str(), 0777);
    auto folder = run_ipchost({"--plugin-dir", dir.path(), "--list", "--verbose"},
                              {{"IPCB_HOSTILE", "marker"}, {"IPCB_HOSTILE_MARKER", marker}}, 60);
    CHECK_THAT(folder.out + folder.err, Catch::Contains("its folder"));
    CHECK_FALSE(std::filesystem::exists(marker));
    chmod(dir.path().c_str(), 0700);
}

TEST_CASE("the main process never loads a plugin", "[isolation]") {
    // The plugin hangs when its parent is not ipchost: in ipchost itself it would hang the run.
    auto run = run_ipchost(hostile_run, {{"IPCB_HOSTILE", "hang_in_host"}}, 60);
    INFO(run.err);
    CHECK_FALSE(run.timed_out);
    CHECK(run.exit_code == 0);
}
