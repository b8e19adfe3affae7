// What a kit starts is held to the kits' rules (kit/kit_trust.hpp, kit/kit_environment.hpp):
// the runtime a launcher script runs is found and checked by ipchost, never looked up by the
// launcher; and a kit's processes start without every variable of ipchost's environment that
// names code, with PATH cut to trusted folders. Each test checks the effect: the attacker's
// program leaves a marker when it runs, or the kit's own process writes down the environment it
// got. The shapes with another user's files run as root (as in CI) and are skipped otherwise.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::temp_dir;
namespace fs = std::filesystem;

namespace {

constexpr uid_t other_uid = 65534;  // nobody

void put_file(const std::string &path, const std::string &text, mode_t mode) {
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
}

std::string file_text(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string system_path() {
    const char *path = std::getenv("PATH");
    return path != nullptr ? path : "/usr/bin:/bin";
}

// A folder owned by another user (other_uid), 0755, holding `programs`: each leaves `marker` and
// prints a version when run.
std::string plant_foreign_bin(const std::string &dir, const std::vector<std::string> &programs,
                              const std::string &marker) {
    fs::create_directories(dir);
    chmod(dir.c_str(), 0755);
    for (const auto &p : programs) {
        put_file(dir + "/" + p, "#!/bin/sh\necho " + p + " >> " + marker + "\necho 1.0\n", 0755);
        chown((dir + "/" + p).c_str(), other_uid, other_uid);
    }
    chown(dir.c_str(), other_uid, other_uid);
    return dir;
}

// A kit of root's whose launcher writes down the environment it was started with (the shell's
// `export -p`) into `dump` and runs the runtime ipchost handed it. `extra` adds manifest fields.
void plant_env_kit(const std::string &dir, const std::string &dump, const std::string &extra) {
    fs::create_directories(dir);
    chmod(dir.c_str(), 0755);
    put_file(dir + "/launch",
             "#!/bin/sh\nexport -p > " + dump + "\nexec \"$IPCBENCH_RUNTIME\" \"$@\"\n", 0755);
    put_file(dir + "/ipcbench-kit.json",
             R"({"kit_manifest": 1, "name": "envkit", "language": "Shell",
                  "worker": ["{kit_dir}/launch"],
                  "runtime_version": ["{kit_dir}/launch", "Shell", "1"],
                  "protocol": ["1.0"], "roles": ["sender", "receiver"],
                  "transports": ["pipe.fifo"], "runtime": "/bin/echo")" +
                 extra + "}",
             0644);
}

// The kit folders this build made, for the launchers of the real kits.
std::string built_kits() {
    return (fs::path(PLUGIN_BUILD_DIR) / ".." / "kits").lexically_normal().string();
}

}  // namespace

TEST_CASE("a runtime a launcher would find on PATH in another user's folder is refused unrun",
          "[kits][trust]") {
    if (geteuid() != 0) IPCBENCH_SKIP("needs root: the attacker's folder belongs to another user");
    temp_dir tmp;
    chmod(tmp.path().c_str(), 0755);
    const std::string marker = tmp.path() + "/ran";
    const std::string bin =
        plant_foreign_bin(tmp.path() + "/evil", {"java", "dotnet", "mono"}, marker);
    auto run = run_ipchost({"--list", "--verbose", "--kit-dir", built_kits()},
                           {{"PATH", bin + ":" + system_path()}}, 120);
    INFO(run.out << run.err);
    int launchers = 0;
    for (const char *kit : {"java", "dotnet", "mono"}) {
        if (!fs::exists(fs::path(built_kits()) / kit / "ipcbench-kit.json")) continue;
        ++launchers;
        CHECK_THAT(run.out,
                   Catch::Contains(std::string(kit) + " ") &&
                       Catch::Contains("the runtime its launcher starts, " + bin + "/" + kit +
                                       " lies in " + bin + ", which is owned by uid 65534"));
    }
    CHECK_FALSE(fs::exists(marker));
    if (launchers == 0) IPCBENCH_SKIP("no launcher kit (java, dotnet, mono) was built");
}

TEST_CASE("IPCBENCH_JAVA and the like naming another user's program are refused unrun",
          "[kits][trust]") {
    if (geteuid() != 0) IPCBENCH_SKIP("needs root: the attacker's program belongs to another user");
    temp_dir tmp;
    chmod(tmp.path().c_str(), 0755);
    const std::string marker = tmp.path() + "/ran";
    const std::string bin = plant_foreign_bin(tmp.path() + "/evil", {"rt"}, marker);
    const std::string dump = tmp.path() + "/env";
    plant_env_kit(tmp.path() + "/kits/envkit", dump, R"(, "runtime_variable": "IPCBENCH_ENVKIT")");
    chmod((tmp.path() + "/kits").c_str(), 0755);
    auto run = run_ipchost({"--list", "--verbose", "--kit-dir", tmp.path() + "/kits"},
                           {{"IPCBENCH_ENVKIT", bin + "/rt"}}, 60);
    INFO(run.out << run.err);
    CHECK_THAT(run.out, Catch::Contains("refused, nothing of it runs: the runtime its launcher "
                                        "starts, " +
                                        bin + "/rt lies in " + bin) &&
                            Catch::Contains("(named by IPCBENCH_ENVKIT)"));
    CHECK_FALSE(fs::exists(marker));
    CHECK_FALSE(fs::exists(dump));

    // The same variable naming root's own program: honoured, handed over as IPCBENCH_RUNTIME.
    auto ok = run_ipchost({"--list", "--kit-dir", tmp.path() + "/kits"},
                          {{"IPCBENCH_ENVKIT", "/bin/true"}}, 60);
    INFO(ok.out << ok.err);
    const std::string env = file_text(dump);
    CHECK_THAT(env, Catch::Contains("IPCBENCH_RUNTIME='" + fs::canonical("/bin/true").string()));
    CHECK_THAT(env, !Catch::Contains("IPCBENCH_ENVKIT"));
}

TEST_CASE("a kit's processes start without the variables that name code", "[kits][trust]") {
    temp_dir tmp;
    chmod(tmp.path().c_str(), 0755);
    const std::string dump = tmp.path() + "/env", open_bin = tmp.path() + "/open";
    fs::create_directories(open_bin);
    chmod(open_bin.c_str(), 01777);
    plant_env_kit(tmp.path() + "/kits/envkit", dump,
                  R"(, "runtime_options_variable": "IPCBENCH_ENVKIT_OPTS",
                     "runtime_options_allowed": ["-Xmx[0-9]+m", "--fast"])");
    chmod((tmp.path() + "/kits").c_str(), 0755);
    const std::map<std::string, std::string> hostile = {
        {"LD_PRELOAD", "/evilroot/evil.so"},
        {"LD_LIBRARY_PATH", "/evilroot"},
        {"PYTHONPATH", "/evilroot"},
        {"PYTHONHOME", "/evilroot"},
        {"PYTHONSTARTUP", "/evilroot/s.py"},
        {"JAVA_TOOL_OPTIONS", "-javaagent:/evilroot/a.jar"},
        {"_JAVA_OPTIONS", "-javaagent:/evilroot/a.jar"},
        {"JDK_JAVA_OPTIONS", "-javaagent:/evilroot/a.jar"},
        {"DOTNET_STARTUP_HOOKS", "/evilroot/hook.dll"},
        {"DOTNET_ADDITIONAL_DEPS", "/evilroot/deps.json"},
        {"CORECLR_PROFILER_PATH", "/evilroot/p.so"},
        {"MONO_PATH", "/evilroot"},
        {"MONO_CONFIG", "/evilroot/config"},
        {"MONO_ENV_OPTIONS", "--profile=log"},
        {"BASH_ENV", "/evilroot/rc"}};
    SECTION("each dropped, by name, at --list --verbose; settings kept") {
        auto env = hostile;
        env["PATH"] = open_bin + ":" + system_path();
        env["DOTNET_gcServer"] = "1";
        env["IPCBENCH_ENVKIT_OPTS"] = "-Xmx64m --fast";
        auto run = run_ipchost({"--list", "--verbose", "--kit-dir", tmp.path() + "/kits"}, env, 60);
        INFO(run.out << run.err);
        const std::string got = file_text(dump);
        INFO(got);
        REQUIRE_FALSE(got.empty());
        for (const auto &[name, value] : hostile) {
            CHECK_THAT(got, !Catch::Contains(name + "="));
            CHECK_THAT(run.out, Catch::Contains("  " + name + ": "));
            CHECK_THAT(run.out, !Catch::Contains(value));  // named, never shown
        }
        CHECK_THAT(got, Catch::Contains("DOTNET_gcServer='1'"));
        CHECK_THAT(got, Catch::Contains("IPCBENCH_ENVKIT_OPTS='-Xmx64m --fast'"));
        CHECK_THAT(got, Catch::Contains("PATH='") && !Catch::Contains(open_bin));
        CHECK_THAT(run.out,
                   Catch::Contains("PATH entry '" + open_bin + "': writable by every user"));
    }
    SECTION("runtime options that could name code are dropped whole, the word said") {
        auto run =
            run_ipchost({"--list", "--verbose", "--kit-dir", tmp.path() + "/kits"},
                        {{"IPCBENCH_ENVKIT_OPTS", "-Xmx64m -javaagent:/evilroot/a.jar"}}, 60);
        INFO(run.out << run.err);
        CHECK_THAT(file_text(dump), !Catch::Contains("IPCBENCH_ENVKIT_OPTS"));
        CHECK_THAT(run.out,
                   Catch::Contains("IPCBENCH_ENVKIT_OPTS: its option '-javaagent:/evilroot/a.jar' "
                                   "is not one of the settings"));
    }
}

TEST_CASE(
    "PYTHONPATH naming another user's sitecustomize runs nothing of it, and the result "
    "says it was dropped",
    "[kits][trust]") {
    if (geteuid() != 0) IPCBENCH_SKIP("needs root: the attacker's folder belongs to another user");
    const fs::path python_kit = fs::path(built_kits()) / "python";
    if (!fs::exists(python_kit / "ipcbench-kit.json")) IPCBENCH_SKIP("the Python kit is not built");
    temp_dir tmp;
    chmod(tmp.path().c_str(), 0777);  // other_uid's code could leave its marker here
    const std::string marker = tmp.path() + "/ran", site = tmp.path() + "/site";
    fs::create_directories(site);
    put_file(site + "/sitecustomize.py", "open('" + marker + "', 'a').write('ran\\n')\n", 0644);
    put_file(site + "/usercustomize.py", "open('" + marker + "', 'a').write('ran\\n')\n", 0644);
    chown(site.c_str(), other_uid, other_uid);
    const std::string json = tmp.path() + "/r.json";
    auto run =
        run_ipchost({"--plugin", "pipe.fifo", "--size", "64", "--duration", "0.2", "--warmup", "0",
                     "--impl", "receiver=python", "--format", "json", "--output", json},
                    {{"PYTHONPATH", site}, {"PYTHONSTARTUP", site + "/sitecustomize.py"}}, 120);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_FALSE(fs::exists(marker));
    const auto doc = nlohmann::json::parse(file_text(json));
    const auto &receiver = doc.at("results").at(0).at("receiver");
    CHECK(receiver.at("implementation") == "python");
    const std::string dropped = receiver.at("environment_dropped").dump();
    CHECK_THAT(dropped, Catch::Contains("PYTHONPATH: ") && Catch::Contains("PYTHONSTARTUP: "));
    CHECK(doc.at("results").at(0).at("sender").at("environment_dropped").empty());  // native
}
