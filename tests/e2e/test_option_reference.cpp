// One option table behind --help, the man page, the README section and shell completion; and
// the listing commands a user and a completion script read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process_runner.hpp"
#include "support/skip.hpp"

using ipcbench::test::run_ipchost;
using ipcbench::test::run_process;
using ipcbench::test::temp_dir;

namespace {

std::string file_text(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The long options of the table, from --help --format words ("--plugin=" takes a value).
std::vector<std::string> long_options() {
    std::vector<std::string> names;
    for (auto line : lines_of(run_ipchost({"--help", "--format", "words"}).out)) {
        if (line.rfind("--", 0) != 0) continue;
        if (line.back() == '=') line.pop_back();
        names.push_back(line);
    }
    return names;
}

}  // namespace

TEST_CASE("the README's option section is the option table, as --help renders it", "[cli]") {
    const std::string readme = file_text(std::string(SOURCE_DIR) + "/README.md");
    const auto begin = readme.find("<!-- options:begin");
    const auto end = readme.find("<!-- options:end -->");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const auto body =
        readme.find("-->\n", readme.find('\n', begin)) + 4;  // after the 2-line marker
    const std::string in_readme = readme.substr(body, end - body);
    const auto generated = run_ipchost({"--help", "--format", "markdown"});
    REQUIRE(generated.exit_code == 0);
    INFO("run scripts/update-readme-options.sh after changing an option");
    CHECK(in_readme == generated.out);
    // What the old hand-written table lacked is there now.
    for (const char *option :
         {"`-p`, `--plugin", "`--batch N`", "`--zero-copy WHEN`", "`--fail-on-regression PERCENT`",
          "`--bind ADDR[:PORT]`", "`--once`", "`--insecure`", "`--idle-timeout SECONDS`",
          "`--list`", "`--describe ID`", "32:1M:*4", "`ipchost new-plugin"})
        CHECK_THAT(in_readme, Catch::Contains(option));
}

TEST_CASE("the --help text and the man page list every option of the table", "[cli]") {
    const auto names = long_options();
    REQUIRE(names.size() > 40);
    const auto help = run_ipchost({"--help"});
    const auto man = run_ipchost({"--help", "--format", "man"});
    REQUIRE(help.exit_code == 0);
    REQUIRE(man.exit_code == 0);
    CHECK(man.out.rfind(".TH IPCHOST 1", 0) == 0);
    for (const auto &name : names) {
        INFO(name);
        CHECK_THAT(help.out, Catch::Contains(name));
        std::string roff;
        for (char c : name) roff += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK_THAT(man.out, Catch::Contains("\\fB" + roff + "\\fR"));
    }
    for (const char *sub : {"ab", "check", "compare", "report", "serve", "new-plugin", "trend"}) {
        CHECK_THAT(help.out, Catch::Contains(std::string("ipchost ") + sub + " "));
        std::string roff;
        for (char c : std::string(sub)) roff += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK_THAT(man.out, Catch::Contains("\\fBipchost " + roff + "\\fR"));
    }
    CHECK_THAT(help.out, Catch::Contains("FROM:TO:*FACTOR"));

    // The man page the build wrote is the same text, and roff finds nothing to warn about.
    CHECK(file_text(MAN_PAGE_PATH) == man.out);
    const auto bad = run_ipchost({"--help", "--format", "pdf"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("expected text, man"));
}

TEST_CASE("a subcommand's --help is its own with its options and examples, and --help has examples",
          "[cli]") {
    const auto compare = run_ipchost({"compare", "--help"});
    REQUIRE(compare.exit_code == 0);
    CHECK_THAT(compare.out, Catch::StartsWith("Usage: ipchost compare BASE.json NEW.json"));
    CHECK_THAT(compare.out, Catch::Contains("--fail-on-regression PERCENT") &&
                                Catch::Contains("--allow-missing") &&
                                Catch::Contains("Examples:") &&
                                Catch::Contains("ipchost compare base.json new.json"));
    CHECK_THAT(compare.out, !Catch::Contains("--streams"));  // not the whole table
    CHECK(std::count(compare.out.begin(), compare.out.end(), '\n') < 40);
    const auto check = run_ipchost({"check", "--help"});
    CHECK_THAT(check.out, Catch::StartsWith("Usage: ipchost check") && Catch::Contains("--impl") &&
                              Catch::Contains("--kit-dir") &&
                              Catch::Contains("ipchost check --impl go"));
    const auto help = run_ipchost({"--help"});
    CHECK_THAT(help.out, Catch::Contains("Examples (ipchost SUBCOMMAND --help") &&
                             Catch::Contains("ipchost --plugin pipe --size 64,4K,1M"));
    const auto man = run_ipchost({"--help", "--format", "man"});
    CHECK_THAT(man.out, Catch::Contains(".SH EXAMPLES") &&
                            Catch::Contains("ipchost compare base.json new.json"));
}

TEST_CASE("the man page the build wrote is clean roff: groff finds nothing to warn about",
          "[cli]") {
    if (run_process({"/bin/sh", "-c", "command -v groff"}).exit_code != 0)
        IPCBENCH_SKIP("groff is not installed (apt-get install groff-base)");
    const auto groff =
        run_process({"/bin/sh", "-c", "groff -man -Tutf8 -ww -z '" MAN_PAGE_PATH "'"});
    CHECK(groff.exit_code == 0);
    CHECK(groff.err.empty());
}

TEST_CASE("bash completion offers subcommands, options, transport ids and option keys", "[cli]") {
    // complete WORDS...: the candidates for the last word, as bash would ask the function.
    auto complete = [](const std::vector<std::string> &words) {
        std::string script = "source '" COMPLETION_PATH "'; COMP_WORDS=('" IPCHOST_PATH "'";
        for (const auto &w : words) script += " '" + w + "'";
        script += "); COMP_CWORD=" + std::to_string(words.size()) +
                  "; _ipchost; printf '%s\\n' \"${COMPREPLY[@]}\"";
        const auto r = run_process({"/bin/bash", "-c", script});
        REQUIRE(r.exit_code == 0);
        return lines_of(r.out);
    };
    using Catch::VectorContains;
    CHECK_THAT(complete({"ne"}), VectorContains(std::string("new-plugin")));
    CHECK_THAT(complete({"--plu"}), VectorContains(std::string("--plugin")));
    CHECK_THAT(complete({"--plu"}), VectorContains(std::string("--plugin-dir")));
    CHECK_THAT(complete({"--plugin", "pipe."}), VectorContains(std::string("pipe.fifo")));
    CHECK_THAT(complete({"--plugin", "pipe.fifo,sock"}),
               VectorContains(std::string("pipe.fifo,socket.tcp")));
    CHECK_THAT(complete({"--plugin", "sh"}), VectorContains(std::string("shm")));
    CHECK_THAT(complete({"--plugin", "pipe.fifo", "--opt", "pi"}),
               VectorContains(std::string("pipe_size=")));
    const auto keys = complete({"--plugin", "pipe.fifo", "--opt", ""});
    CHECK_THAT(keys, !VectorContains(std::string("nodelay=")));  // socket.tcp's, not selected
    CHECK_THAT(complete({"--lang", ""}), VectorContains(std::string("cpp")));
    CHECK_THAT(complete({"a"}), VectorContains(std::string("ab")));
    CHECK_THAT(complete({"ab", "--rounds", ""}), VectorContains(std::string("auto")));
    CHECK_THAT(complete({"tr"}), VectorContains(std::string("trend")));
}

TEST_CASE("the JSON of --list and --describe says what a script needs", "[cli]") {
    const auto list =
        run_ipchost({"--plugin-dir", FIXTURE_PLUGIN_DIR, "--list", "--format", "json"});
    REQUIRE(list.exit_code == 0);
    const auto doc = nlohmann::json::parse(list.out);
    CHECK(doc.at("ipchost_version").get<std::string>().rfind("1.", 0) == 0);
    CHECK(doc.at("abi") == "1.2");
    const nlohmann::json *fifo = nullptr;
    for (const auto &t : doc.at("transports"))
        if (t.at("id") == "pipe.fifo") fifo = &t;
    REQUIRE(fifo != nullptr);
    CHECK(fifo->at("plugin").at("name") == "pipe");
    CHECK(fifo->at("capabilities").get<std::vector<std::string>>() ==
          std::vector<std::string>{"stream", "reliable", "ordered", "close-notify"});
    CHECK(fifo->at("max_message_size").is_null());
    CHECK(fifo->at("calls").get<std::vector<std::string>>().front() == "send");
    CHECK(fifo->at("library").get<std::string>().find("ipcb-pipe") != std::string::npos);
    bool pipe_size = false;
    for (const auto &o : fifo->at("options"))
        if (o.at("key") == "pipe_size") pipe_size = o.at("default").is_null();
    CHECK(pipe_size);  // declared without a default: null, not ""
    // The fixture folder's broken files, with their codes.
    std::set<std::string> codes;
    for (const auto &r : doc.at("rejected")) {
        CHECK_FALSE(r.at("fix").get<std::string>().empty());
        codes.insert(r.at("code").get<std::string>());
    }
    CHECK(codes.count("IPCB-LOAD-004") == 1);
    CHECK(codes.count("IPCB-LOAD-001") == 1);
    CHECK(doc.at("search_path").size() >= 2);

    // --describe takes a plugin name like --plugin does, in both formats.
    const auto described = run_ipchost({"--describe", "pipe", "--format", "json"});
    REQUIRE(described.exit_code == 0);
    const auto both = nlohmann::json::parse(described.out);
    REQUIRE(both.size() == 2);
    CHECK(both[0].at("id").get<std::string>().rfind("pipe.", 0) == 0);
    const auto text = run_ipchost({"--describe", "pipe"});
    CHECK_THAT(text.out, Catch::Contains("pipe.fifo:"));
    CHECK_THAT(text.out, Catch::Contains("pipe.anon:"));
    CHECK_THAT(text.out, Catch::Contains("--opt pipe_size=VALUE (no default: unset unless given)"));
    CHECK_THAT(text.out, Catch::Contains("--opt splice=none (default)"));
    CHECK_THAT(text.out, !Catch::Contains("kernel/OS default"));
    CHECK(run_ipchost({"--list", "--format", "csv"}).exit_code == 2);
}

TEST_CASE("the --list table sizes its columns from their content", "[cli]") {
    const auto list = run_ipchost({"--list"});
    REQUIRE(list.exit_code == 0);
    // Every transport row's library column starts where the header's does.
    const auto rows = lines_of(list.out);
    REQUIRE_FALSE(rows.empty());
    const auto column = rows[0].find("library");
    REQUIRE(column != std::string::npos);
    int checked = 0;
    for (const auto &row : rows)
        if (row.find("/ipcb-") != std::string::npos) {
            INFO(row);
            CHECK(row.find('/') == column);
            ++checked;
        }
    CHECK(checked >= 10);
}

TEST_CASE("options of other commands are refused, naming the command they belong to", "[cli]") {
    struct refusal {
        std::vector<std::string> args;
        const char *text;
    };
    const refusal cases[] = {
        {{"--plugin", "pipe.fifo", "--bind", "127.0.0.1:9"},
         "--bind is an option of ipchost serve, not of a run"},
        {{"--plugin", "pipe.fifo", "--once"}, "--once is an option of ipchost serve"},
        {{"--plugin", "pipe.fifo", "--fail-on-regression", "5"},
         "--fail-on-regression is an option of ipchost compare and ipchost ab, not of a run"},
        {{"serve", "--peer", "127.0.0.1:1"}, "--peer is an option of a run"},
        {{"check", "--lang", "cpp"},
         "--lang is an option of ipchost new-plugin, not of ipchost check"},
    };
    for (const auto &c : cases) {
        INFO(c.text);
        const auto r = run_ipchost(c.args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(c.text));
    }
}

TEST_CASE("a bad --opt value is refused before any case runs, with the plugin's words", "[cli]") {
    const auto r = run_ipchost({"--plugin", "pipe.fifo", "--opt", "pipe_size=abc", "-v"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--opt for pipe.fifo"));
    CHECK_THAT(r.err, Catch::Contains("IPCB_E_BAD_OPTION"));
    CHECK_THAT(r.err, Catch::Contains("pipe_size=abc"));
    CHECK_THAT(r.err, !Catch::Contains("case 1 of"));  // no worker started (-v logs each case)
    // A C++ plugin's typed option, through the helper.
    const auto kit = run_ipchost(
        {"--plugin-dir", CPPKIT_PLUGIN_DIR, "--plugin", "cppkit", "--opt", "lend=sometimes"});
    CHECK(kit.exit_code == 2);
    CHECK_THAT(kit.err, Catch::Contains("expected one of both, send, none"));
    // check refuses it the same way.
    const auto check = run_ipchost({"check", "--plugin", "pipe.fifo", "--opt", "splice=maybe"});
    CHECK(check.exit_code == 2);
    CHECK_THAT(check.err, Catch::Contains("splice=maybe"));
}

TEST_CASE("new-plugin writes a project, refusing bad names and used folders", "[cli]") {
    temp_dir dir;
    const std::string c_dir = dir.path() + "/ringbuf";
    const auto made = run_ipchost({"new-plugin", "ringbuf", "--dir", c_dir});
    REQUIRE(made.exit_code == 0);
    CHECK_THAT(made.out, Catch::Contains("cmake --build build"));
    const std::string source = file_text(c_dir + "/my_transport.c");
    CHECK_THAT(source, Catch::Contains("#define MY_PLUGIN_NAME \"ringbuf\""));
    CHECK_THAT(source, !Catch::Contains("mytransport"));
    CHECK_THAT(file_text(c_dir + "/CMakeLists.txt"), Catch::Contains("project(ringbuf"));
    const std::string readme = file_text(c_dir + "/README.md");
    CHECK_THAT(readme, Catch::Contains("cmake -S . -B build -DCMAKE_PREFIX_PATH="));
    CHECK_THAT(readme, Catch::Contains("ipchost check --plugin-dir build/ipcbench-plugins "
                                       "--plugin ringbuf"));
    const auto cpp =
        run_ipchost({"new-plugin", "seq2", "--lang", "cpp", "--dir", dir.path() + "/seq2"});
    REQUIRE(cpp.exit_code == 0);
    CHECK_THAT(file_text(dir.path() + "/seq2/my_transport.cpp"),
               Catch::Contains("#define MY_PLUGIN_NAME \"seq2\""));

    const auto again = run_ipchost({"new-plugin", "ringbuf", "--dir", c_dir});
    CHECK(again.exit_code == 2);
    CHECK_THAT(again.err, Catch::Contains("exists and is not an empty folder"));
    const auto bad = run_ipchost({"new-plugin", "Ring.Buf", "--dir", dir.path() + "/x"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("a plugin name is 1 to 32 of a-z, 0-9 and _"));
    const auto lang =
        run_ipchost({"new-plugin", "rb", "--lang", "rust", "--dir", dir.path() + "/y"});
    CHECK(lang.exit_code == 2);
    CHECK_THAT(lang.err, Catch::Contains("--lang 'rust': expected c or cpp"));
    CHECK(run_ipchost({"new-plugin"}).exit_code == 2);
}
