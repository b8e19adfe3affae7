// Local trust as OpenSSH's StrictModes does it: a plugin is loaded only when no other user could
// have replaced it (the file, its folder and every folder above it), and only while it is the
// file that was checked; new-plugin writes only into a folder of the user's own, never through
// a planted link; a token file others could read is refused; a result file too large or too
// deep is refused before it costs memory. The root-only attacks (a folder owned by another
// user) run when the suite runs as root, as in CI, and are reported skipped otherwise.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "platform/file_identity.hpp"
#include "platform/private_file.hpp"
#include "plugin/plugin_loader.hpp"
#include "plugin/plugin_registry.hpp"
#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::temp_dir;
namespace fs = std::filesystem;

namespace {

constexpr uid_t nobody = 65534;

// What a sanitizer adds to a process's memory (shadow memory, quarantine): bounds on peak RSS
// scale by it.
#if defined(__SANITIZE_THREAD__)
constexpr long sanitizer_memory_factor = 6;
#elif defined(__SANITIZE_ADDRESS__)
constexpr long sanitizer_memory_factor = 3;
#else
constexpr long sanitizer_memory_factor = 1;
#endif

// A copy of the hostile fixture (its constructor leaves a marker) at `folder`/ipcb-hostile.so.
std::string plant_hostile(const std::string &folder) {
    fs::create_directories(folder);
    const std::string copy = folder + "/ipcb-hostile.so";
    fs::copy_file(std::string(HOSTILE_PLUGIN_DIR) + "/ipcb-hostile.so", copy,
                  fs::copy_options::overwrite_existing);
    chmod(copy.c_str(), 0755);
    return copy;
}

// `ipchost --list --verbose` on `folder`, the hostile constructor told to leave `marker`.
ipcbench::test::process_output list_with_marker(const std::string &folder,
                                                const std::string &marker) {
    return run_ipchost({"--plugin-dir", folder, "--list", "--verbose"},
                       {{"IPCB_HOSTILE", "marker"}, {"IPCB_HOSTILE_MARKER", marker}}, 60);
}

}  // namespace

TEST_CASE("a plugin below a folder others can write is refused, whatever the folder's own mode",
          "[isolation]") {
    temp_dir tmp;
    const std::string w = tmp.path() + "/W", plugins = w + "/plugins";
    const std::string marker = tmp.path() + "/constructor-ran";
    plant_hostile(plugins);
    chmod(plugins.c_str(), 0755);
    chmod(w.c_str(), 0777);  // anyone may rename W/plugins and put their own in its place
    auto refused = list_with_marker(plugins, marker);
    INFO(refused.out << refused.err);
    CHECK_THAT(refused.out + refused.err,
               Catch::Contains("IPCB-LOAD-013") &&
                   Catch::Contains("below a folder others could change") &&
                   Catch::Contains(w + " is writable by every user (mode 0777)"));
    CHECK_FALSE(fs::exists(marker));
    // Sticky, like /tmp: nobody can rename what is not theirs in it, so it is fine above.
    chmod(w.c_str(), 01777);
    auto sticky = list_with_marker(plugins, marker);
    INFO(sticky.out << sticky.err);
    CHECK_THAT(sticky.out, !Catch::Contains("IPCB-LOAD-013"));
    CHECK(fs::exists(marker));  // the same file loads, in the probe child
    // A group that can write a folder above is as good as everyone for this.
    fs::remove(marker);
    chmod(w.c_str(), 0775);
    auto group = list_with_marker(plugins, marker);
    CHECK_THAT(group.out + group.err, Catch::Contains(w + " is writable by its group"));
    CHECK_FALSE(fs::exists(marker));
    chmod(w.c_str(), 0700);
}

TEST_CASE("group-writable plugin files and folders are refused unloaded", "[isolation]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/constructor-ran";
    const std::string folder = tmp.path() + "/plugins";
    const std::string copy = plant_hostile(folder);
    chmod(folder.c_str(), 0755);
    chmod(copy.c_str(), 0775);
    auto file = list_with_marker(folder, marker);
    CHECK_THAT(file.out + file.err, Catch::Contains("IPCB-LOAD-013") &&
                                        Catch::Contains("writable by its group") &&
                                        Catch::Contains("(mode 0775)"));
    CHECK_FALSE(fs::exists(marker));
    chmod(copy.c_str(), 0755);
    chmod(folder.c_str(), 0775);
    auto dir = list_with_marker(folder, marker);
    CHECK_THAT(dir.out + dir.err,
               Catch::Contains("its folder") && Catch::Contains("writable by its group"));
    CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("a link in a trusted folder to a library in an open one is refused", "[isolation]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/constructor-ran";
    const std::string open_dir = tmp.path() + "/open", folder = tmp.path() + "/plugins";
    const std::string target = plant_hostile(open_dir);
    chmod(open_dir.c_str(), 0777);
    fs::create_directories(folder);
    chmod(folder.c_str(), 0755);
    fs::create_symlink(target, folder + "/ipcb-linked.so");
    auto run = list_with_marker(folder, marker);
    INFO(run.out << run.err);
    CHECK_THAT(run.out + run.err, Catch::Contains("ipcb-linked.so: rejected [IPCB-LOAD-013]") &&
                                      Catch::Contains("a link to " + target));
    CHECK_FALSE(fs::exists(marker));
    chmod(open_dir.c_str(), 0700);
}

TEST_CASE("a worker loads a plugin only while it is the file the scan checked", "[isolation]") {
    temp_dir tmp;
    const std::string folder = tmp.path() + "/plugins";
    fs::create_directories(folder);
    const std::string file = folder + "/ipcb-cplug.so";
    fs::copy_file(std::string(FIXTURE_PLUGIN_DIR) + "/ipcb-cplug.so", file);
    ipcbench::plugin::plugin_registry registry;
    registry.scan({folder});
    const auto *found = registry.find("cplug.stream");
    REQUIRE(found != nullptr);
    const std::string checked = found->library_identity;
    CHECK(checked == ipcbench::platform::file_identity(file));
    // Unchanged: it loads.
    CHECK(ipcbench::plugin::load_transport(file, "cplug.stream", checked).transports.size() == 1);
    // Replaced after the scan (a new file renamed over it): refused, unloaded.
    const std::string replacement = folder + "/new.tmp";
    fs::copy_file(file, replacement);
    fs::rename(replacement, file);
    CHECK_THROWS_WITH(ipcbench::plugin::load_transport(file, "cplug.stream", checked),
                      Catch::Contains("changed after ipchost checked it"));
}

TEST_CASE("new-plugin writes only into a folder of the user's own, never through a link",
          "[isolation]") {
    temp_dir tmp;
    // A file that must not be touched, and a link to it where the project's README would go.
    const std::string precious = tmp.path() + "/precious";
    std::ofstream(precious) << "keep\n";
    const std::string planted = tmp.path() + "/planted";
    fs::create_symlink(precious, planted);
    CHECK_THROWS_WITH(ipcbench::platform::create_new_file(planted, "overwritten\n"),
                      Catch::Contains("cannot create"));
    std::ifstream in(precious);
    std::string kept;
    std::getline(in, kept);
    CHECK(kept == "keep");
    // A folder others can write, a link to a folder: refused by name.
    const std::string shared = tmp.path() + "/shared";
    fs::create_directories(shared);
    chmod(shared.c_str(), 0770);
    auto group = run_ipchost({"new-plugin", "ringbuf", "--dir", shared});
    CHECK(group.exit_code == 2);
    CHECK_THAT(group.err, Catch::Contains("writable by its group") &&
                              Catch::Contains("writes only into a folder of your own"));
    CHECK(fs::is_empty(shared));
    const std::string link = tmp.path() + "/link";
    fs::create_directories(tmp.path() + "/real");
    fs::create_directory_symlink(tmp.path() + "/real", link);
    auto linked = run_ipchost({"new-plugin", "ringbuf", "--dir", link});
    CHECK(linked.exit_code == 2);
    CHECK_THAT(linked.err, Catch::Contains("a symbolic link"));
    // A folder of this user's own: the project is written.
    auto fine = run_ipchost({"new-plugin", "ringbuf", "--dir", tmp.path() + "/mine"});
    INFO(fine.err);
    CHECK(fine.exit_code == 0);
    CHECK(fs::exists(tmp.path() + "/mine/README.md"));
}

TEST_CASE("new-plugin run as root refuses an empty folder another user owns", "[isolation]") {
    if (geteuid() != 0) IPCBENCH_SKIP("only root can make a folder another user owns");
    temp_dir tmp;
    const std::string theirs = tmp.path() + "/theirs";
    fs::create_directories(theirs);
    REQUIRE(chown(theirs.c_str(), nobody, nobody) == 0);
    chmod(tmp.path().c_str(), 0755);
    auto run = run_ipchost({"new-plugin", "ringbuf", "--dir", theirs});
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::Contains("owned by uid 65534, not by this user (uid 0)"));
    CHECK(fs::is_empty(theirs));
}

TEST_CASE("a token file others could read, or another user's, is refused with the reason",
          "[isolation]") {
    temp_dir tmp;
    const std::string token = tmp.path() + "/token";
    std::ofstream(token) << "s3cret\n";
    chmod(token.c_str(), 0644);
    auto open = run_ipchost({"--peer", "127.0.0.1:9", "--token-file", token});
    CHECK(open.exit_code == 2);
    CHECK_THAT(open.err, Catch::Contains("can be read or changed by others (mode 644)") &&
                             Catch::Contains("chmod 600 '" + token + "'"));
    auto serve = run_ipchost({"serve", "--token-file", token, "--allow-root"});
    CHECK(serve.exit_code == 2);
    CHECK_THAT(serve.err, Catch::Contains("(mode 644)"));
    chmod(token.c_str(), 0600);
    CHECK(ipcbench::platform::read_private_file(token, 4096) == "s3cret\n");
    if (geteuid() != 0) return;  // the rest needs a file of another user's
    REQUIRE(chown(token.c_str(), nobody, nobody) == 0);
    auto theirs = run_ipchost({"--peer", "127.0.0.1:9", "--token-file", token});
    CHECK(theirs.exit_code == 2);
    CHECK_THAT(theirs.err, Catch::Contains("belongs to uid 65534, not to this user (uid 0)"));
}

TEST_CASE("result files too large or too deep are refused before they cost memory", "[report]") {
    temp_dir tmp;
    // 48 MiB of nesting: refused by the depth scan, not parsed into 1.8 GiB of nodes.
    const std::string nested = tmp.path() + "/nested.json";
    {
        std::ofstream out(nested);
        const std::string open(24u << 20, '['), close(24u << 20, ']');
        out << open << close;
    }
    for (const char *command : {"report", "compare"}) {
        std::vector<std::string> args{command, nested};
        if (std::string(command) == "compare") args.push_back(nested);
        auto run = run_ipchost(args, {}, 60);
        INFO(run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains("is not a result file of ipchost --format json") &&
                                Catch::Contains("nested deeper than 32 levels"));
        CHECK(run.max_rss_kib > 0);
        // A 48 MiB read, nothing built from it (unbounded: 1.8 GiB).
        CHECK(run.max_rss_kib < 256 * 1024 * sanitizer_memory_factor);
    }
    // Flat, 48 MiB of tiny values: the value count bounds it.
    const std::string flat = tmp.path() + "/flat.json";
    {
        std::ofstream out(flat);
        out << "[";
        for (std::size_t i = 0; i < (24u << 20); ++i) out << "0,";
        out << "0]";
    }
    auto values = run_ipchost({"report", flat}, {}, 60);
    CHECK(values.exit_code == 2);
    CHECK_THAT(values.err, Catch::Contains("more than 4194304 values"));
    CHECK(values.max_rss_kib < 256 * 1024 * sanitizer_memory_factor);
    // Over the size bound: refused from its size.
    const std::string huge = tmp.path() + "/huge.json";
    {
        std::ofstream out(huge);
        out << "{\"x\":\"" << std::string((64u << 20) + 10, 'a') << "\"}";
    }
    auto big = run_ipchost({"report", huge}, {}, 60);
    CHECK(big.exit_code == 2);
    CHECK_THAT(big.err, Catch::Contains("larger than 64 MiB"));
}
