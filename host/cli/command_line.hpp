#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/case_settings.hpp"
#include "remote/agent_client.hpp"
#include "remote/agent_server.hpp"
#include "report/output_formats.hpp"
#include "report/table_report.hpp"
#include "scaffold/plugin_scaffold.hpp"

namespace ipcbench::cli {

// What the user asked for, validated. Built by parse_command_line (command_line.cpp, one
// function per group of options); usage_error otherwise.
// `ipchost fleet`: the agents and the schedule (cli/fleet_command.cpp).
struct fleet_options {
    std::vector<std::string> agents;  // --agent, each HOST:PORT or dns:NAME:PORT [labels]
    std::string agents_file;          // --agents FILE (or dns:NAME:PORT: every address)
    std::string pairs = "mesh";       // --pairs mesh | star=AGENT
    std::size_t sample = 0;           // --sample K: K random ordered pairs (0: --pairs)
    std::uint64_t seed = 1;           // --seed S
    std::size_t concurrency = 1;      // --concurrency C: pairs of a round at once
    double gap_s = 0;                 // --gap SECONDS between rounds
    int data_port_first = 0;          // --data-port: where each destination's endpoints listen
    int data_port_last = 0;           //   (0: any free port)
};

// `ipchost ab`: what differs between the two sides and how long to go on (cli/ab_command.cpp).
struct ab_options {
    std::string base_ipchost, new_ipchost;         // "" = this ipchost
    std::vector<std::string> base_args, new_args;  // --base-arg / --new-arg, one word each
    // What each side runs with: the run's options as typed, less those the side names itself
    // (which replace them), then the side's own.
    std::vector<std::string> base_run_args, new_run_args;
    int rounds = 0;         // 0: auto
    double budget_s = 900;  // auto: start no round after this
    static constexpr int most_rounds = 200;
};

struct command_line {
    std::string subcommand;  // "", "ab", "check", "compare", "report", "serve", "trend", ...
    std::vector<std::string> inputs;  // compare: BASE NEW; report: RESULTS
    bool help = false;
    bool version = false;
    bool list = false;
    bool verbose = false;
    bool quiet = false;
    std::string describe;              // transport id or plugin name for --describe
    bool listing_json = false;         // --list / --describe --format json
    std::vector<std::string> plugins;  // ids or plugin names; empty = all
    std::vector<std::filesystem::path> plugin_dirs;
    std::vector<std::filesystem::path> kit_dirs;  // --kit-dir
    // --impl: who runs each side of each case, (sender side, receiver side) per pair, "native"
    // or a kit's name; a run repeats every case for each pair.
    std::vector<std::pair<std::string, std::string>> implementations = {{"native", "native"}};
    bool warmup_given = false;  // --warmup named: a kit's declared warm-up does not raise it
    bool uses_kits() const;

    // What to measure. Every case starts from `case_defaults`; settings_for_case fills in its
    // transport, mode and size (and the rate a --bitrate gives at that size).
    model::case_settings case_defaults;
    std::vector<model::measure_mode> modes;
    std::vector<std::uint64_t> sizes;          // throughput sizes
    std::vector<std::uint64_t> latency_sizes;  // the same when --size is given, else 32
    double bitrate_bits_per_s = 0;             // --bitrate: per stream, the rate follows per size
    std::vector<std::string> option_assignments;  // "KEY=VALUE" or "ID:KEY=VALUE"
    int repeat = 1;                               // with precision: the most repetitions
    // --precision / --repeat auto: repeat a case until the 95 % interval of its headline
    // figure's median is within this share of it (0.05: +/-5 %); 0: exactly `repeat` times.
    double precision = 0;
    static constexpr double default_precision = 0.05;
    static constexpr int default_repeat_cap = 30;
    double cv_warning = 0.10;
    double fail_on_regression = -1;  // compare, ab: percent; < 0 = never fail
    bool allow_missing = false;      // compare, ab: cases on one side only do not fail the gate
    double threshold = 0.05;         // compare, ab: the change that counts (a share)
    bool gate_cpu = false;           // compare, ab: gate CPU time per message too
    ab_options ab;
    std::uint64_t memory_budget = model::default_memory_budget;  // --memory-budget of a run

    report::output_format format = report::output_format::table;
    report::table_layout layout;  // --wide, --columns
    bool format_given = false;
    std::string output;  // file, empty = stdout
    std::string histogram_file;
    bool per_stream_list = false;  // --per-stream

    // Two hosts: --peer on the client, `serve` on the agent.
    std::optional<remote::agent_address> agent;  // --peer: the agent that runs the server side
    // --from: the agent that runs the client side against --peer's (agent to agent)
    std::optional<remote::agent_address> from_agent;
    fleet_options fleet;
    remote::serve_options serve;

    std::string help_format = "text";  // --help --format: text, man, markdown, words
    std::string help_text;             // --help, rendered in help_format

    scaffold::plugin_request new_plugin;  // new-plugin NAME --lang --dir
};

command_line parse_command_line(int argc, const char *const argv[]);

// `--token T` (or --token=T) leaves T in /proc/PID/cmdline for every local user for as long as
// the process runs: the caller parses a copy of argv and this overwrites the token's bytes in
// the process's own argv with zeros. True when there was one (the caller warns: it was visible
// until now). POSIX only in effect: Windows keeps its own copy of the command line.
bool wipe_token_arguments(int argc, char **argv);

// The settings of one case of this run: the defaults with its transport, mode and size; latency
// cases run unpaced with batch 1.
model::case_settings settings_for_case(const command_line &cmd, const std::string &transport_id,
                                       model::measure_mode mode, std::uint64_t size);

}  // namespace ipcbench::cli
