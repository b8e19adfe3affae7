// The folders of host/ form layers (docs/architecture.md): no folder may include one that
// includes it back, directly or through others. Computed from the sources, so a new include
// that closes a cycle fails here, naming it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using graph = std::map<std::string, std::set<std::string>>;

// folder -> folders its files include ("harness" -> {"plugin", "platform", ...}).
graph folder_includes(const std::filesystem::path &host) {
    graph g;
    const std::regex include(R"re(#include "([a-z_]+)/)re");
    for (const auto &entry : std::filesystem::recursive_directory_iterator(host)) {
        const auto ext = entry.path().extension();
        if (ext != ".cpp" && ext != ".hpp") continue;
        const auto relative = std::filesystem::relative(entry.path(), host);
        if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end())
            continue;  // main.cpp: above every layer
        const std::string from = relative.begin()->string();
        g[from];
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_search(line, m, include) && m[1] != from &&
                std::filesystem::is_directory(host / m[1].str()))
                g[from].insert(m[1]);
        }
    }
    return g;
}

// A cycle as "a -> b -> a", or "" when there is none.
std::string find_cycle(const graph &g) {
    std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
    std::vector<std::string> path;
    std::string cycle;
    std::function<bool(const std::string &)> visit = [&](const std::string &node) {
        state[node] = 1;
        path.push_back(node);
        const auto it = g.find(node);
        if (it != g.end())
            for (const auto &next : it->second) {
                if (state[next] == 1) {
                    auto start = std::find(path.begin(), path.end(), next);
                    for (auto p = start; p != path.end(); ++p) cycle += *p + " -> ";
                    cycle += next;
                    return true;
                }
                if (state[next] == 0 && visit(next)) return true;
            }
        path.pop_back();
        state[node] = 2;
        return false;
    };
    for (const auto &[node, edges] : g)
        if (state[node] == 0 && visit(node)) return cycle;
    return "";
}

// An operating-system header: a `.h` include in angle brackets that is not one of the libraries
// the host builds on (C and C++ standard headers are <cstdio>-style, without `.h`).
bool is_os_header(const std::string &header) {
    static const std::vector<std::string> libraries{"fmt/",   "spdlog/",   "ipcbench/",
                                                    "boost/", "nlohmann/", "catch2/"};
    if (header.size() < 2 || header.compare(header.size() - 2, 2, ".h") != 0) return false;
    return std::none_of(libraries.begin(), libraries.end(),
                        [&](const std::string &prefix) { return header.rfind(prefix, 0) == 0; });
}

// "file: <header>" for each OS header included outside host/platform/ (where the POSIX and
// Windows implementations of every OS call live).
std::vector<std::string> os_headers_outside_platform(const std::filesystem::path &host) {
    std::vector<std::string> found;
    const std::regex include(R"re(^\s*#\s*include\s*<([^>]+)>)re");
    for (const auto &entry : std::filesystem::recursive_directory_iterator(host)) {
        const auto ext = entry.path().extension();
        if (ext != ".cpp" && ext != ".hpp" && ext != ".h") continue;
        const auto relative = std::filesystem::relative(entry.path(), host);
        if (relative.begin()->string() == "platform") continue;
        std::ifstream in(entry.path());
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_search(line, m, include) && is_os_header(m[1]))
                found.push_back(relative.generic_string() + ": <" + m[1].str() + ">");
        }
    }
    return found;
}

}  // namespace

TEST_CASE("only host/platform includes operating-system headers", "[layering]") {
    CHECK(is_os_header("unistd.h"));
    CHECK(is_os_header("sys/socket.h"));
    CHECK(is_os_header("windows.h"));
    CHECK_FALSE(is_os_header("fmt/format.h"));
    CHECK_FALSE(is_os_header("cstdio"));
    CHECK_FALSE(is_os_header("boost/dll.hpp"));
    const auto found = os_headers_outside_platform(HOST_SOURCE_DIR);
    for (const auto &f : found) INFO(f);
    CAPTURE(found);
    CHECK(found.empty());
}

TEST_CASE("the OS header check finds a stray include", "[layering]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("ipcbench-layering-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir / "harness");
    std::filesystem::create_directories(dir / "platform");
    std::ofstream(dir / "harness" / "loop.cpp") << "#include <fmt/format.h>\n#include <poll.h>\n";
    std::ofstream(dir / "platform" / "wait_posix.cpp") << "#include <poll.h>\n";
    const auto found = os_headers_outside_platform(dir);
    std::filesystem::remove_all(dir);
    REQUIRE(found.size() == 1);
    CHECK(found[0] == "harness/loop.cpp: <poll.h>");
}

TEST_CASE("host folders include each other without cycles", "[layering]") {
    const graph g = folder_includes(HOST_SOURCE_DIR);
    REQUIRE(g.size() >= 10);  // cli, conformance, control, harness, platform, plugin, ...
    CHECK(g.at("harness").count("conformance") == 0);
    // The two processes of a case: the orchestrating side (harness, the main process) and the
    // timed side (timed, in each worker) share nothing but the model and the control channel.
    CHECK(g.at("harness").count("timed") == 0);
    CHECK(g.at("timed").count("harness") == 0);
    CHECK(g.at("timed").count("worker") == 0);
    CHECK(g.at("worker").count("timed") == 1);
    CHECK(g.at("stats").empty());
    CHECK(g.at("text").empty());
    INFO("cycle: " << find_cycle(g));
    CHECK(find_cycle(g).empty());
}

TEST_CASE("the cycle finder finds cycles", "[layering]") {
    CHECK(find_cycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {}}}).empty());
    CHECK(find_cycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}) == "a -> b -> c -> a");
}
