#include "cli/option_reference.hpp"

#include <fmt/format.h>
#include <boost/program_options/parsers.hpp>
#include <sstream>

namespace ipcbench::cli {

namespace po = boost::program_options;

namespace {

const char *const summary =
    "Runs every transport plugin found (or those named) between two processes and reports "
    "throughput, latency, CPU and memory.";

struct option_names {
    std::string short_name;  // "-p" or ""
    std::string long_name;   // "--plugin"
    std::string parameter;   // "ID[,ID...]" or ""
};

option_names names_of(const po::option_description &o) {
    option_names n;
    n.long_name = "--" + o.long_name();
    const std::string shortest =
        o.canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (shortest.size() == 2 && shortest[0] == '-') n.short_name = shortest;
    n.parameter = o.format_parameter();
    return n;
}

std::string escape_markdown(const std::string &text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

// roff: a backslash and a minus are escaped, and no line may start with '.' or '\''.
std::string escape_roff(const std::string &text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
    return out;
}

}  // namespace

// The commands that judge a change: ab, compare, trend (report/verdict_rules.hpp).
std::vector<subcommand_doc> verdict_docs() {
    return {
        {"ab",
         "[--base-ipchost PATH] [--new-ipchost PATH] [--base-arg ARG] [--new-arg ARG] "
         "[--rounds N|auto] [--budget SECONDS] [--threshold PERCENT] [--fail-on-regression "
         "PERCENT] [--gate-cpu] [--allow-missing] [--format FORMAT] [--output FILE] "
         "[run options]",
         "measures base and new side by side on this machine in one invocation: two ipchost "
         "builds, two plugin folders holding the same transport ids, two kits or APIs, or two "
         "option sets. Rounds alternate in ABBA order and each side of each round is its own "
         "ipchost and worker processes, so the machine's drift hits both; every figure gets the "
         "ratio new/base with a 95 % interval from the paired rounds (Wilcoxon signed-rank on "
         "the log ratios, Hodges-Lehmann estimate), the noise of one round, and a verdict: "
         "faster, slower, equivalent within +/-PERCENT, or inconclusive with the rounds that "
         "would decide it. With no side argument it is an A/A run: the noise floor per figure. "
         "The gate (--fail-on-regression) judges MB/s and msg/s (throughput) and p50 and p99 "
         "(latency), CPU time per message with --gate-cpu, Holm across all of them: exit 1 "
         "slower, 0 faster or equivalent, 3 inconclusive.",
         "ipchost ab --base-ipchost /opt/base/bin/ipchost --plugin pipe.fifo --size 1K\n"
         "ipchost ab --base-arg=--plugin-dir=old/ --new-arg=--plugin-dir=new/ --plugin ring\n"
         "ipchost ab --new-arg=--opt=pipe_size=1M --plugin pipe.fifo --fail-on-regression 5\n"
         "ipchost ab --base-arg=--impl=go --new-arg=--impl=python --plugin pipe.fifo\n"
         "ipchost ab --plugin socket.unix --size 1K --rounds 12   # A/A: this machine's noise\n"},
        {"compare",
         "BASE.json NEW.json [--threshold PERCENT] [--fail-on-regression PERCENT] [--gate-cpu] "
         "[--allow-missing] [--format FORMAT] [--output FILE]",
         "a summary line (cases compared, better, worse, equivalent, inconclusive, missing), what "
         "differs between the two machines' conditions, then per matching case (transport, "
         "mode, direction, size, streams, rate and who ran each side: native or a kit and its "
         "API) the ratio of each figure in the table's units with its 95 % interval "
         "(Hodges-Lehmann shift of the logs, Mann-Whitney interval over the repetitions) and a "
         "verdict by the rules of ab; two files come from two runs, so the interval includes "
         "the machine's drift between them (ipchost ab interleaves instead). With "
         "--fail-on-regression, exit 1 when a gated figure is slower (Holm across them), 3 "
         "when the files cannot decide it (too few repetitions: --repeat 5 or more), and 1 when "
         "nothing matched or a case is in one file only (unless --allow-missing).",
         "ipchost --repeat 6 --format json --output base.json   # measure, with repetitions\n"
         "ipchost compare base.json new.json              # the two runs, case by case\n"
         "ipchost compare base.json new.json --fail-on-regression 5   # a gate over two files\n"
         "ipchost compare base.json new.json --format json --output change.json\n"},
        {"trend", "FILE... [--format FORMAT] [--output FILE]",
         "reads result files of a series of runs (nightly, in time order) and reports the change "
         "points of each case's figures: where the series shifted, by E-divisive means (the "
         "method of Apache Otava/Hunter and MongoDB's CI: energy distance, a seeded permutation "
         "test at p < 0.01, each segment at least 3 runs), with the median before and after and "
         "the label (--label KEY=VALUE of the run: a commit) or file of each side.",
         "ipchost --label commit=$(git rev-parse --short HEAD) --format json --output n42.json\n"
         "ipchost trend nights/*.json                 # change points per case and figure\n"},
    };
}

const std::vector<subcommand_doc> &subcommand_docs() {
    static const std::vector<subcommand_doc> docs = [] {
        std::vector<subcommand_doc> all = {
            {"check",
             "[--plugin ID] [--plugin-dir DIR] [--impl KIT[:API]] [--kit-dir DIR] [--opt "
             "KEY=VALUE] "
             "[--timeout SECONDS]",
             "runs the conformance suite (payload byte for byte, message boundaries, timeouts, "
             "peer "
             "close, option and address errors, zero-copy and batches, leaks) against each "
             "transport, or with --impl a kit's worker against ipchost's own on each transport the "
             "kit "
             "offers; `check` comes first, before its options; one line per check, then 'N passed, "
             "N "
             "failed'; exit code 0 only if all pass.",
             "ipchost check                              # every transport found, every check\n"
             "ipchost check --plugin pipe.fifo           # one transport\n"
             "ipchost check --impl go                    # the Go kit against ipchost's own "
             "worker\n"},
            {"report", "RESULTS.json [--output report.html] [--format FORMAT]",
             "one self-contained HTML page with SVG charts (or the results in another format).",
             "ipchost report results.json --output report.html   # the HTML page\n"
             "ipchost report results.json --format csv     # the same results as CSV\n"},
            {"serve",
             "[--bind ADDR:PORT] [--token TOKEN | --token-file FILE | --insecure] [--once] "
             "[--allow-root] [--idle-timeout SECONDS] [--allow-ports FIRST-LAST] "
             "[--allow-connect ADDR] [--allow-peer ADDR[/BITS]] [--allow-unbound ID] "
             "[--allow-option "
             "ID:KEY] "
             "[--memory-budget BYTES]",
             "an agent for runs from another host (ipchost --peer ADDR:PORT ...); it runs only "
             "cross-host transports from its own plugin folders, listens only on the address a "
             "client reached it by, connects only back to the client, and takes from the wire only "
             "options that name no address, port, path or device.",
             "ipchost serve --bind 0.0.0.0:7878 --token-file agent.token   # an agent\n"
             "ipchost --peer 10.0.0.2:7878 --token-file agent.token --plugin socket.tcp   # use "
             "it\n"},
            {"fleet",
             "--agent HOST:PORT... | --agents FILE [--token-file FILE] [--pairs mesh|star=AGENT | "
             "--sample K --seed S] [--concurrency C] [--gap SECONDS] [case options]",
             "runs the cases between every pair of `ipchost serve` agents (agent to agent, none of "
             "it on this host) in rounds where no agent is in two pairs; every row names its "
             "source "
             "and destination agent, their labels and its round; an agent that fails fails only "
             "its "
             "rows.",
             "ipchost fleet --agents agents.txt --token-file agent.token --plugin socket.tcp\n"
             "ipchost fleet --agent a:7878 --agent b:7878 --agent c:7878 --pairs star=a\n"},
            {"system", "[--format json] [--output FILE]",
             "what on this machine can move a figure between runs, and what to change: "
             "virtualisation and the CPU time a hypervisor stole, the frequency governor and "
             "turbo, "
             "SMT siblings, isolated CPUs, interrupts per CPU and irqbalance, the load and the "
             "busiest "
             "other processes, ASLR; rates over one second; it changes nothing. Every run's result "
             "records the same conditions over the run (JSON `conditions`), and compare states the "
             "ones that differ.",
             "ipchost system                   # the conditions, then what to change\n"
             "ipchost system --format json     # the same as JSON\n"},
            {"new-plugin", "NAME [--lang c|cpp] [--dir DIR]",
             "writes a ready plugin project from the installed SDK template (default ./NAME): it "
             "builds with find_package(ipcbench), loads with --plugin-dir and passes ipchost "
             "check; "
             "its README says the next commands.",
             "ipchost new-plugin myring --lang c   # a project in ./myring\n"},
        };
        const auto verdicts = verdict_docs();
        all.insert(all.begin() + 1, verdicts.begin(), verdicts.end());  // after check
        return all;
    }();
    return docs;
}

const std::vector<environment_doc> &environment_docs() {
    static const std::vector<environment_doc> docs = {
        {"IPCBENCH_PLUGIN_PATH",
         "more plugin folders (':'-separated), searched after --plugin-dir"},
        {"IPCBENCH_KIT_PATH", "more kit folders (':'-separated), searched after --kit-dir"},
        {"IPCBENCH_PROBE_CACHE",
         "0 turns off the cache of plugin probe verdicts (a plugin whose "
         "loading depends on the environment)"},
        {"IPCBENCH_JAVA",
         "the java the Java kit runs on (default: java on PATH), found and held to the kit "
         "folder's trust rules by ipchost, as every runtime a kit starts"},
        {"IPCBENCH_JAVA_OPTS",
         "more JVM options for the Java kit (-Xmx..., -XX:+UseZGC); passed only when every "
         "word is a setting the kit's manifest allows (an option can name code)"},
        {"IPCBENCH_DOTNET",
         "the dotnet host the C# kit on CoreCLR runs on; DOTNET_* settings reach "
         "it as they reach a program (the kit sets DOTNET_TC_CallCountingDelayMs=0 "
         "unless given: tier 1 within its warm-up), those that name code do not"},
        {"IPCBENCH_MONO", "the mono the C# kit on Mono runs on"},
        {"IPCBENCH_MONO_OPTS",
         "more Mono runtime options (--gc-params=..., --llvm), the shapes the manifest allows"},
        {"IPCBENCH_RUNTIME",
         "set by ipchost, for a kit's launcher: the absolute path of the runtime it found and "
         "checked (the manifest's \"runtime\"); one in ipchost's own environment is not passed"},
        {"(kits)",
         "a kit's processes get ipchost's environment without what names code (LD_*, "
         "PYTHON*, JAVA_TOOL_OPTIONS, DOTNET_STARTUP_HOOKS, MONO_PATH...) and with PATH cut "
         "to folders only their owner may write; ipchost --list --verbose says what was left "
         "out"},
    };
    return docs;
}

const char *reference_notes() {
    return "Sizes: a list of BYTES with suffixes K, M, G (binary), and ranges FROM:TO:*FACTOR "
           "(32:1M:*4 = 32, 128, ..., 512K: the last step not past TO) or FROM:TO:+STEP "
           "(1K:8K:+1K).\n"
           "Plugin folders, in search order: every --plugin-dir, then IPCBENCH_PLUGIN_PATH "
           "(':'-separated), then <ipchost dir>/../lib/ipcbench/plugins.\n"
           "Exit codes: 0 all cases measured, 1 a case failed, 2 bad usage, 130 interrupted.\n";
}

const char *run_examples() {
    return "ipchost                                          # every transport found, default "
           "sizes\n"
           "ipchost --plugin pipe --size 64,4K,1M            # one plugin's transports, three "
           "sizes\n"
           "ipchost --plugin socket.tcp --mode latency --repeat 5   # ping-pong, repeated\n"
           "ipchost --plugin socket.unix --impl receiver=native,go,python   # a reader per "
           "language\n"
           "ipchost --plugin udp.inet --rate 100000 --interval 1    # paced, a line a second\n"
           "ipchost --list                                   # what is installed and why not\n";
}

std::string render_help_text(const std::vector<option_group> &groups) {
    po::options_description all(std::string("Usage: ipchost [options]\n\n") + summary +
                                "\n\nOptions");
    for (const auto &g : groups) all.add(*g.options);
    std::ostringstream out;
    out << all << "\n";
    for (const auto &s : subcommand_docs())
        out << "ipchost " << s.name << " " << s.synopsis << ": " << s.text << "\n";
    out << "\nExamples (ipchost SUBCOMMAND --help shows a subcommand's own):\n";
    std::istringstream examples(run_examples());
    for (std::string line; std::getline(examples, line);) out << "  " << line << "\n";
    out << "\n" << reference_notes();
    out << "Environment:\n";
    for (const auto &e : environment_docs()) out << "  " << e.name << ": " << e.text << "\n";
    return out.str();
}

std::string render_subcommand_help(const subcommand_doc &doc,
                                   const std::vector<option_group> &groups) {
    std::ostringstream out;
    out << "Usage: ipchost " << doc.name << " " << doc.synopsis << "\n\n" << doc.text << "\n";
    // The options its synopsis names, described as in the whole table.
    const std::string synopsis = doc.synopsis;
    po::options_description own("Options");
    for (const auto &g : groups)
        for (const auto &o : g.options->options())
            if (synopsis.find("--" + o->long_name() + " ") != std::string::npos ||
                synopsis.find("--" + o->long_name() + "]") != std::string::npos)
                own.add(o);
    if (!own.options().empty()) out << "\n" << own;
    out << "\nExamples:\n";
    std::istringstream examples(doc.examples);
    for (std::string line; std::getline(examples, line);) out << "  " << line << "\n";
    out << "\nipchost --help lists every option and subcommand.\n";
    return out.str();
}

std::string render_markdown(const std::vector<option_group> &groups) {
    std::string out;
    for (const auto &g : groups) {
        out += fmt::format("**{}**\n\n| option | what it does |\n|---|---|\n", g.caption);
        for (const auto &o : g.options->options()) {
            const auto n = names_of(*o);
            std::string shown = n.short_name.empty() ? "" : "`" + n.short_name + "`, ";
            shown += "`" + n.long_name + (n.parameter.empty() ? "" : " " + n.parameter) + "`";
            out += fmt::format("| {} | {} |\n", escape_markdown(shown),
                               escape_markdown(o->description()));
        }
        out += "\n";
    }
    out += "**Subcommands**\n\n| command | what it does |\n|---|---|\n";
    for (const auto &s : subcommand_docs())
        out += fmt::format("| `ipchost {} {}` | {} |\n", s.name, escape_markdown(s.synopsis),
                           escape_markdown(s.text));
    out += "\n";
    std::istringstream notes(reference_notes());
    for (std::string line; std::getline(notes, line);) out += line + "\n\n";
    return out;
}

std::string render_man_page(const std::vector<option_group> &groups) {
    std::string out = fmt::format(
        ".TH IPCHOST 1 \"\" \"ipcbench {}\" \"User Commands\"\n"
        ".SH NAME\nipchost \\- benchmark inter\\-process communication transports\n"
        ".SH SYNOPSIS\n.B ipchost\n[\\fIoptions\\fR]\n",
        IPCBENCH_VERSION);
    for (const auto &s : subcommand_docs())
        out +=
            fmt::format(".br\n.B ipchost {}\n{}\n", escape_roff(s.name), escape_roff(s.synopsis));
    out += fmt::format(".SH DESCRIPTION\n{}\n", escape_roff(summary));
    out += ".SH OPTIONS\n";
    for (const auto &g : groups) {
        out += fmt::format(".SS {}\n", escape_roff(g.caption));
        for (const auto &o : g.options->options()) {
            const auto n = names_of(*o);
            out += ".TP\n";
            if (!n.short_name.empty())
                out += fmt::format("\\fB{}\\fR, ", escape_roff(n.short_name));
            out += fmt::format("\\fB{}\\fR", escape_roff(n.long_name));
            if (!n.parameter.empty()) out += fmt::format(" \\fI{}\\fR", escape_roff(n.parameter));
            out += fmt::format("\n{}\n", escape_roff(o->description()));
        }
    }
    out += ".SH COMMANDS\n";
    for (const auto &s : subcommand_docs())
        out += fmt::format(".TP\n\\fBipchost {}\\fR {}\n{}\n", escape_roff(s.name),
                           escape_roff(s.synopsis), escape_roff(s.text));
    out += ".SH EXAMPLES\n";
    std::istringstream examples(std::string(run_examples()) + [] {
        std::string all;
        for (const auto &d : subcommand_docs()) all += d.examples;
        return all;
    }());
    for (std::string line; std::getline(examples, line);)
        out += fmt::format(".nf\n{}\n.fi\n", escape_roff(line));
    out += ".SH NOTES\n";
    std::istringstream notes(reference_notes());
    for (std::string line; std::getline(notes, line);) out += escape_roff(line) + "\n.PP\n";
    out += ".SH ENVIRONMENT\n";
    for (const auto &e : environment_docs())
        out += fmt::format(".TP\n.B {}\n{}\n", e.name, escape_roff(e.text));
    out += ".SH SEE ALSO\nThe guides in /usr/share/doc/ipcbench (README.md, SDK.md).\n";
    return out;
}

std::string render_words(const std::vector<option_group> &groups) {
    std::string out;
    for (const auto &s : subcommand_docs()) out += std::string(s.name) + "\n";
    for (const auto &g : groups)
        for (const auto &o : g.options->options()) {
            const auto n = names_of(*o);
            out += n.long_name + (n.parameter.empty() ? "" : "=") + "\n";
            if (!n.short_name.empty()) out += n.short_name + "\n";
        }
    return out;
}

}  // namespace ipcbench::cli
