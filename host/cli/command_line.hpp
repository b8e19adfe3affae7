#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ipcbench::cli {

// What the user asked for, validated. Built by parse_command_line; usage_error otherwise.
struct command_line {
    bool help = false;
    bool version = false;
    bool list = false;
    bool check = false;               // `ipchost check ...`: the conformance suite
    std::string subcommand;           // "", "check", "compare", "report"
    std::vector<std::string> inputs;  // compare: BASE NEW; report: RESULTS
    bool verbose = false;
    std::string describe;              // transport id for --describe
    std::vector<std::string> plugins;  // ids or plugin names; empty = all
    std::vector<std::filesystem::path> plugin_dirs;
    std::vector<std::string> modes;            // "throughput", "latency"
    std::vector<std::uint64_t> sizes;          // throughput sizes
    std::vector<std::uint64_t> latency_sizes;  // the same when --size is given
    double duration_s = 0.5;
    double warmup_s = 0.2;
    std::uint64_t count = 0;
    double timeout_s = 0;
    std::vector<std::string> option_assignments;  // "KEY=VALUE" or "ID:KEY=VALUE"
    int streams = 1;
    double rate = 0;                    // messages/s per stream, 0 = unpaced
    double bitrate = 0;                 // bit/s per stream (--bitrate), turned into a rate per size
    std::string direction = "forward";  // forward, reverse, bidir
    int sender_cpu = -1, receiver_cpu = -1;
    bool verify = false;
    int batch = 1;                   // messages per data-path call
    std::string zero_copy = "auto";  // auto, on, off
    int repeat = 1;
    double cv_warning = 0.10;
    double interval_s = 0;
    bool quiet = false;
    std::string histogram_file;
    double fail_on_regression = -1;  // compare: percent; < 0 = never fail
    // Two hosts: `--peer` on the client; `serve` on the agent.
    std::string peer;   // HOST:PORT of an `ipchost serve` agent
    std::string token;  // from --token or --token-file
    int data_port_first = 0, data_port_last = 0;
    std::string bind = "127.0.0.1";
    bool once = false, insecure = false, allow_root = false;
    double idle_timeout_s = 10;
    std::string format = "table";  // table, json, csv, markdown
    bool format_given = false;
    std::string output;  // file, empty = stdout
    std::string help_text;
};

command_line parse_command_line(int argc, const char *const argv[]);

}  // namespace ipcbench::cli
