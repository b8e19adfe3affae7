// A kit is code ipchost runs, so it is trusted as a plugin is (kit/kit_trust.hpp): a kit whose
// manifest is a link, whose folder or any folder above it others could change, which holds a
// file others could change, or whose command names a program in such a folder, is refused before
// anything of it runs: not the runtime-version probe of `--list`, not the worker of a run. Each
// shape checks the effect: the planted worker leaves a marker file when it runs, and a trusted
// copy of the same kit does run it. The shapes with another user's files run as root (as in
// CI) and are reported skipped otherwise.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::temp_dir;
namespace fs = std::filesystem;

namespace {

constexpr uid_t nobody = 65534;

void write_file(const std::string &path, const std::string &text, mode_t mode) {
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
}

// A kit folder `dir` whose worker, when anything runs it (the runtime-version probe or a
// case), leaves `marker`: a Python script in a subfolder, named by the manifest.
void plant_kit(const std::string &dir, const std::string &marker) {
    fs::create_directories(dir + "/lib");
    chmod(dir.c_str(), 0755);
    chmod((dir + "/lib").c_str(), 0755);
    write_file(dir + "/lib/worker.py",
               "import sys\nopen(" + std::string("'") + marker +
                   "', 'a').write('ran\\n')\nprint('Python 3 (planted)')\nsys.exit(0)\n",
               0644);
    write_file(dir + "/ipcbench-kit.json",
               R"({"kit_manifest": 1, "name": "trapkit", "language": "Python",
                  "worker": ["python3", "-B", "{kit_dir}/lib/worker.py"],
                  "runtime_version": ["python3", "-B", "{kit_dir}/lib/worker.py", "--v"],
                  "protocol": ["1.0"], "roles": ["sender", "receiver"],
                  "transports": ["pipe.fifo"]})",
               0644);
}

ipcbench::test::process_output list_kits(const std::string &kit_dir,
                                         std::map<std::string, std::string> env = {}) {
    std::vector<std::string> args{"--list", "--verbose"};
    if (!kit_dir.empty()) args.insert(args.end(), {"--kit-dir", kit_dir});
    return run_ipchost(args, env, 60);
}

// The kit's line of --list says it was refused for `reason`, and nothing of it ran.
void check_refused(const ipcbench::test::process_output &run, const std::string &marker,
                   const std::string &reason) {
    INFO(run.out << run.err);
    CHECK_THAT(run.out, Catch::Contains("refused, nothing of it runs") && Catch::Contains(reason));
    CHECK_FALSE(fs::exists(marker));
}

}  // namespace

TEST_CASE("a trusted kit folder runs its runtime probe: the planted kit is live", "[kits][trust]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/ran", kit = tmp.path() + "/kits/trapkit";
    plant_kit(kit, marker);
    chmod((tmp.path() + "/kits").c_str(), 0755);
    auto run = list_kits(tmp.path() + "/kits");
    INFO(run.out << run.err);
    CHECK_THAT(run.out, Catch::Contains("Python 3 (planted)"));
    CHECK(fs::exists(marker));  // so each refusal below is the check's doing
}

TEST_CASE("a kit folder others can write, or below one, is refused unrun", "[kits][trust]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/ran", parent = tmp.path() + "/W";
    const std::string kit = parent + "/trapkit";
    plant_kit(kit, marker);
    SECTION("the kit folder itself is 0777, its manifest root's") {
        chmod(parent.c_str(), 0755);
        chmod(kit.c_str(), 0777);
        check_refused(list_kits(parent), marker, "writable by every user (mode 0777)");
    }
    SECTION("the kit folder is group-writable") {
        chmod(parent.c_str(), 0755);
        chmod(kit.c_str(), 0775);
        check_refused(list_kits(parent), marker, "writable by its group");
    }
    SECTION("a folder above it is world-writable (rename it away, put another in its place)") {
        chmod(parent.c_str(), 0777);
        check_refused(list_kits(parent), marker,
                      "below a folder others could change: " + parent +
                          " is writable by every user (mode 0777)");
    }
    SECTION("a module inside it is group-writable") {
        chmod(parent.c_str(), 0755);
        chmod((kit + "/lib/worker.py").c_str(), 0664);
        check_refused(list_kits(parent), marker,
                      "in the kit folder, " + kit + "/lib/worker.py is writable by its group");
    }
    SECTION("the same folder named by IPCBENCH_KIT_PATH is refused alike") {
        chmod(parent.c_str(), 0755);
        chmod(kit.c_str(), 0777);
        check_refused(list_kits("", {{"IPCBENCH_KIT_PATH", parent}}), marker,
                      "writable by every user (mode 0777)");
    }
}

TEST_CASE("a run with --impl refuses an untrusted kit by name and runs none of it",
          "[kits][trust]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/ran", parent = tmp.path() + "/kits";
    plant_kit(parent + "/trapkit", marker);
    chmod(parent.c_str(), 0755);
    chmod((parent + "/trapkit").c_str(), 0777);
    auto run = run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--duration", "0.2", "--impl",
                            "receiver=trapkit", "--kit-dir", parent},
                           {}, 60);
    INFO(run.out << run.err);
    CHECK(run.exit_code != 0);
    CHECK_THAT(run.out + run.err, Catch::Contains("trapkit") &&
                                      Catch::Contains("refused, nothing of it runs") &&
                                      Catch::Contains("writable by every user"));
    CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("a runtime found on PATH in a folder others can write is refused", "[kits][trust]") {
    temp_dir tmp;
    const std::string marker = tmp.path() + "/ran", parent = tmp.path() + "/kits";
    const std::string bin = tmp.path() + "/bin";
    plant_kit(parent + "/trapkit", marker);
    chmod(parent.c_str(), 0755);
    fs::create_directories(bin);
    // A "python3" of the attacker's, first on PATH.
    write_file(bin + "/python3", "#!/bin/sh\necho ran >> " + marker + "\necho Python 3\n", 0755);
    chmod(bin.c_str(), 0777);
    const char *path = std::getenv("PATH");
    auto run = list_kits(parent, {{"PATH", bin + ":" + (path ? path : "/usr/bin:/bin")}});
    check_refused(run, marker, "its command runs " + bin + "/python3 lies in " + bin);
}

TEST_CASE("another user's kit folder is refused, even with a link to an installed manifest",
          "[kits][trust]") {
    if (geteuid() != 0) IPCBENCH_SKIP("needs root: the attacker's files belong to another user");
    temp_dir tmp;
    const std::string marker = tmp.path() + "/ran", parent = tmp.path() + "/user";
    const std::string kit = parent + "/pykit";
    fs::create_directories(kit);
    chmod(tmp.path().c_str(), 0755);  // nobody's worker may write the marker beside it
    chmod(parent.c_str(), 0755);
    chmod(kit.c_str(), 0755);
    // The installed, root-owned Python kit's manifest, linked: it names {kit_dir}'s worker,
    // which is the attacker's own.
    fs::create_symlink(fs::path(PLUGIN_BUILD_DIR) / ".." / "kits" / "python" / "ipcbench-kit.json",
                       kit + "/ipcbench-kit.json");
    write_file(kit + "/ipcbench_worker.py",
               "open('" + marker + "', 'a').write('ran\\n')\nprint('Python 3 (planted)')\n", 0644);
    SECTION("the link") {
        lchown((kit + "/ipcbench-kit.json").c_str(), nobody, nobody);
        chown(kit.c_str(), nobody, nobody);
        chown((kit + "/ipcbench_worker.py").c_str(), nobody, nobody);
        check_refused(list_kits(parent), marker, "is a symbolic link");
    }
    SECTION("a copy of the manifest, root's, in the other user's folder") {
        fs::remove(kit + "/ipcbench-kit.json");
        fs::copy_file(fs::path(PLUGIN_BUILD_DIR) / ".." / "kits" / "python" / "ipcbench-kit.json",
                      kit + "/ipcbench-kit.json");
        chmod((kit + "/ipcbench-kit.json").c_str(), 0644);
        chown(kit.c_str(), nobody, nobody);
        check_refused(list_kits(parent), marker, "owned by uid 65534 while ipchost runs as root");
    }
    SECTION("root's folder and manifest, the worker script another user's") {
        fs::remove(kit + "/ipcbench-kit.json");
        fs::copy_file(fs::path(PLUGIN_BUILD_DIR) / ".." / "kits" / "python" / "ipcbench-kit.json",
                      kit + "/ipcbench-kit.json");
        chmod((kit + "/ipcbench-kit.json").c_str(), 0644);
        chown((kit + "/ipcbench_worker.py").c_str(), nobody, nobody);
        check_refused(list_kits(parent), marker,
                      kit + "/ipcbench_worker.py is owned by uid 65534 while ipchost runs as root");
    }
}
