// Plugin code never runs in the main ipchost process: probes and workers take every attack of
// tests/fixtures/plugins/hostile_plugin.c, and ipchost keeps its results, its output and its
// process group.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

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
        try {  // a process exiting while it is read makes std::filebuf throw
            std::ifstream in(e.path() / "environ");
            std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (env.find(needle) != std::string::npos) ++n;
        } catch (const std::exception &) {
        }
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
    // Named in the result: every byte counted, the first 4 KiB kept.
    for (const char *side : {"sender", "receiver"}) {
        const auto &printed = doc.at("results")[0].at("worker_output").at(side);
        CHECK(printed.at("bytes") == 8 * 1024 * 1024);  // 4 MiB on stdout, 4 MiB on stderr
        CHECK(printed.at("text").get<std::string>().size() <= 4097);
        CHECK_THAT(printed.at("text").get<std::string>(), Catch::StartsWith("SSSS"));
    }
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
    // The marker proves something only if loading writes it: trusted, the same file loads (in
    // the probe child) and its constructor leaves the marker.
    auto trusted = run_ipchost({"--plugin-dir", dir.path(), "--list", "--verbose"},
                               {{"IPCB_HOSTILE", "marker"}, {"IPCB_HOSTILE_MARKER", marker}}, 60);
    CHECK_THAT(trusted.out, !Catch::Contains("IPCB-LOAD-013"));
    CHECK(std::filesystem::exists(marker));
}

TEST_CASE("the main process never loads a plugin", "[isolation]") {
    // The plugin hangs when its parent is not ipchost: in ipchost itself it would hang the run.
    auto run = run_ipchost(hostile_run, {{"IPCB_HOSTILE", "hang_in_host"}}, 60);
    INFO(run.err);
    CHECK_FALSE(run.timed_out);
    CHECK(run.exit_code == 0);
}

TEST_CASE("probe verdicts are cached by file identity: a slow plugin costs its time once",
          "[isolation]") {
    ipcbench::test::temp_dir state, dir;
    const std::string copy = dir.path() + "/ipcb-hostile.so", marker = dir.path() + "/loads";
    std::filesystem::copy_file(std::string(HOSTILE_PLUGIN_DIR) + "/ipcb-hostile.so", copy);
    const std::map<std::string, std::string> env = {{"IPCBENCH_PROBE_CACHE", "1"},
                                                    {"XDG_RUNTIME_DIR", state.path()},
                                                    {"IPCB_HOSTILE", "marker,slow_entry"},
                                                    {"IPCB_HOSTILE_MARKER", marker}};
    auto count_loads = [&] {
        std::ifstream in(marker);
        std::size_t n = 0;
        for (std::string line; std::getline(in, line);) ++n;
        return n;
    };
    for (int run = 0; run < 2; ++run) {
        auto listed = run_ipchost({"--plugin-dir", dir.path(), "--list"}, env, 60);
        INFO(listed.err);
        REQUIRE(listed.exit_code == 0);
        CHECK_THAT(listed.out, Catch::Contains("hostile.stream"));
    }
    CHECK(count_loads() == 1);  // the second --list used the cached metadata
    // A changed file is probed again.
    std::filesystem::last_write_time(copy, std::filesystem::file_time_type::clock::now());
    auto again = run_ipchost({"--plugin-dir", dir.path(), "--list"}, env, 60);
    CHECK(again.exit_code == 0);
    CHECK(count_loads() == 2);
    // Each part of the key alone: the same bytes and times in a new file (another inode)...
    const auto when = std::filesystem::last_write_time(copy);
    std::filesystem::copy_file(copy, copy + ".new");
    std::filesystem::last_write_time(copy + ".new", when);
    std::filesystem::rename(copy + ".new", copy);
    CHECK(run_ipchost({"--plugin-dir", dir.path(), "--list"}, env, 60).exit_code == 0);
    CHECK(count_loads() == 3);
    CHECK(run_ipchost({"--plugin-dir", dir.path(), "--list"}, env, 60).exit_code == 0);
    CHECK(count_loads() == 3);  // ...cached again under its new identity
    // ...and another ipchost judging the same file (its own identity is in every key).
    const std::string other_host = state.path() + "/ipchost";
    std::filesystem::copy_file(IPCHOST_PATH, other_host);
    auto other =
        ipcbench::test::run_process({other_host, "--plugin-dir", dir.path(), "--list"}, env, 60);
    INFO(other.err);
    CHECK(other.exit_code == 0);
    CHECK(count_loads() == 4);
    struct stat st {};
    REQUIRE(stat((state.path() + "/ipcbench/probe-cache.json").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("a cached verdict takes the path the file is found by now", "[isolation]") {
    ipcbench::test::temp_dir state, dir;
    std::filesystem::create_directory(dir.path() + "/folder");
    std::filesystem::copy_file(std::string(FIXTURE_PLUGIN_DIR) + "/ipcb-cplug.so",
                               dir.path() + "/folder/ipcb-cplug.so");
    const std::string env = "IPCBENCH_PROBE_CACHE=1 XDG_RUNTIME_DIR='" + state.path() + "' ";
    // First seen through a relative folder from dir, and cached so.
    const auto relative = ipcbench::test::run_process(
        {"/bin/sh", "-c",
         "cd '" + dir.path() + "' && " + env + "'" IPCHOST_PATH "' --plugin-dir folder --list"});
    REQUIRE(relative.exit_code == 0);
    // Then from elsewhere by its absolute path: the workers must get that path, not "folder/".
    const std::map<std::string, std::string> cached = {{"IPCBENCH_PROBE_CACHE", "1"},
                                                       {"XDG_RUNTIME_DIR", state.path()}};
    const auto listed = run_ipchost(
        {"--plugin-dir", dir.path() + "/folder", "--list", "--format", "json"}, cached, 60);
    REQUIRE(listed.exit_code == 0);
    const auto doc = nlohmann::json::parse(listed.out);
    std::string library;
    for (const auto &t : doc.at("transports"))
        if (t.at("id") == "cplug.stream") library = t.at("library");
    CHECK(library == dir.path() + "/folder/ipcb-cplug.so");
    const auto run = run_ipchost({"--plugin-dir", dir.path() + "/folder", "--plugin", "cplug",
                                  "--mode", "throughput", "-s", "64", "-d", "0.05", "-w", "0"},
                                 cached, 60);
    INFO(run.err);
    CHECK(run.exit_code == 0);
}

TEST_CASE("a plugin's text is escaped and capped, bad option keys are refused", "[isolation]") {
    auto ansi = run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--list"},
                            {{"IPCB_HOSTILE", "ansi_text"}}, 60);
    INFO(ansi.err);
    REQUIRE(ansi.exit_code == 0);
    CHECK(ansi.out.find('\x1b') == std::string::npos);
    CHECK_THAT(ansi.out, Catch::Contains("\\x1b[31mred\\x0asecond line"));
    CHECK(ansi.out.size() < 16 * 1024);  // not 100 KB of description
    auto described =
        run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--describe", "hostile.stream"},
                    {{"IPCB_HOSTILE", "ansi_text"}}, 60);
    CHECK(described.out.find('\x1b') == std::string::npos);
    auto key = run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--list", "--verbose"},
                           {{"IPCB_HOSTILE", "bad_option_key"}}, 60);
    CHECK_THAT(key.out, Catch::Contains("IPCB-LOAD-012") && Catch::Contains("'Bad Key'"));
    // Each rule of a key broken alone (a key wrong in two ways proves neither rule), and keys
    // at the edge of the rules accepted.
    auto listed_with_key = [](const std::string &k) {
        return run_ipchost({"--plugin-dir", HOSTILE_PLUGIN_DIR, "--list", "--verbose"},
                           {{"IPCB_HOSTILE", "option_key"}, {"IPCB_HOSTILE_OPTION_KEY", k}}, 60);
    };
    for (const std::string &bad : std::vector<std::string>{
             "bad key", "BadKey", "bad-key", "bad.key", "ключ", std::string(65, 'a')}) {
        INFO("key '" << bad << "'");
        const auto run = listed_with_key(bad);
        CHECK_THAT(run.out, Catch::Contains("IPCB-LOAD-012") &&
                                Catch::Contains("is not [a-z0-9_]+ (at most 64 characters)"));
        CHECK_THAT(run.out, !Catch::Contains("hostile.stream  "));
    }
    for (const std::string &good : std::vector<std::string>{"a", "key_2", std::string(64, 'z')}) {
        INFO("key '" << good << "'");
        const auto run = listed_with_key(good);
        CHECK_THAT(run.out, !Catch::Contains("IPCB-LOAD-012"));
        CHECK_THAT(run.out, Catch::Contains("hostile.stream"));
    }
}

TEST_CASE("SIGTERM during discovery leaves no probe behind", "[isolation]") {
    // The probes sleep in their entry point; ipchost is terminated while they do.
    auto run = ipcbench::test::run_process(
        {"/bin/sh", "-c",
         std::string("IPCB_HOSTILE=slow_entry '") + IPCHOST_PATH + "' --plugin-dir '" +
             HOSTILE_PLUGIN_DIR +
             "' --list & host=$!; sleep 0.3; kill -TERM $host; wait $host; "
             "exit 0"});
    CHECK(run.exit_code == 0);
    // Probes are forked copies of ipchost carrying this test's tag; none may outlive it.
    for (int i = 0; i < 100 && !ipcbench::test::tagged_processes().empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(ipcbench::test::tagged_processes().empty());
}
