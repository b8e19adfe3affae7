#include "cli/command_line.hpp"

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/usage_error.hpp"
#include "cli/value_parsing.hpp"

namespace ipcbench::cli {

namespace po = boost::program_options;

command_line parse_command_line(int argc, const char *const argv[]) {
    command_line cmd;
    std::string mode = "both", sizes = "32,1K,64K", duration = "0.5", warmup = "0.2", count,
                timeout;
    std::vector<std::string> plugin_lists, dirs;

    po::options_description general("Usage: ipchost [options]\n\nRuns every transport plugin "
                                    "found (or those named) between two processes and reports "
                                    "throughput, latency, CPU and memory.\n\nOptions");
    general.add_options()
        ("help,h", "show this help")
        ("version", "show the version")
        ("list", "list the plugins and transports found")
        ("verbose,v", "with --list: also rejected plugin files and why; otherwise debug logs")
        ("describe", po::value(&cmd.describe)->value_name("ID"),
         "show a transport's options, defaults and help")
        ("plugin,p", po::value(&plugin_lists)->value_name("ID[,ID...]"),
         "transports to run: an id (pipe.fifo) or a plugin name (pipe: all of its transports); "
         "repeatable; default: all")
        ("plugin-dir", po::value(&dirs)->value_name("DIR"),
         "also load plugins from DIR (searched first); repeatable")
        ("mode,m", po::value(&mode)->value_name("MODE"),
         "throughput, latency or both (default both)")
        ("size,s", po::value(&sizes)->value_name("BYTES[,BYTES...]"),
         "message sizes, suffixes K M G, at least 8 (default: 32,1K,64K for throughput and 32 "
         "for latency, where size matters little)")
        ("duration,d", po::value(&duration)->value_name("SECONDS"),
         "timed phase of each case (default 0.5)")
        ("warmup,w", po::value(&warmup)->value_name("SECONDS"),
         "untimed traffic before each case (default 0.2)")
        ("count,n", po::value(&count)->value_name("N"),
         "time exactly N messages (round trips) per case instead of --duration")
        ("timeout", po::value(&timeout)->value_name("SECONDS"),
         "watchdog per case (default: warm-up + duration + 20 s; 300 s with --count)")
        ("opt,o", po::value(&cmd.option_assignments)->value_name("[ID:]KEY=VALUE"),
         "transport option, for every selected transport that takes KEY (or only ID); "
         "repeatable; see --describe")
        ("format,f", po::value(&cmd.format)->value_name("FORMAT"), "table or json (default table)")
        ("output", po::value(&cmd.output)->value_name("FILE"),
         "write the results to FILE instead of stdout");

    std::ostringstream help;
    help << general
         << "\nipchost check [--plugin ID] [--plugin-dir DIR] [--opt KEY=VALUE]: runs the "
            "conformance suite (payload byte for byte, message boundaries, timeouts, peer close, "
            "option and address errors, leaks) against each transport; one line per check, "
            "then 'N passed, N failed'; exit code 0 only if all pass.\n"
         << "\nPlugin folders, in search order: every --plugin-dir, then IPCBENCH_PLUGIN_PATH "
            "(':'-separated), then <ipchost dir>/../lib/ipcbench/plugins.\n"
            "Exit codes: 0 all cases measured, 1 a case failed, 2 bad usage, 130 interrupted.\n";
    cmd.help_text = help.str();

    // `ipchost check [options]`: the conformance suite instead of a benchmark run.
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "check") {
        cmd.check = true;
        args.erase(args.begin());
    }
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(general).run(), vm);
        po::notify(vm);
    } catch (const po::error &e) {
        throw usage_error(std::string(e.what()) + "; see ipchost --help");
    }
    cmd.help = vm.count("help") > 0;
    cmd.version = vm.count("version") > 0;
    cmd.list = vm.count("list") > 0;
    cmd.verbose = vm.count("verbose") > 0;
    for (const auto &list : plugin_lists)
        for (const auto &id : split_list(list)) cmd.plugins.push_back(id);
    for (const auto &d : dirs) cmd.plugin_dirs.emplace_back(d);

    if (mode == "both")
        cmd.modes = {"throughput", "latency"};
    else if (mode == "throughput" || mode == "latency")
        cmd.modes = {mode};
    else
        throw usage_error("--mode '" + mode + "': expected throughput, latency or both");
    cmd.sizes = parse_size_list("--size", sizes);
    cmd.latency_sizes = vm.count("size") ? cmd.sizes : std::vector<std::uint64_t>{32};
    cmd.duration_s = parse_seconds("--duration", duration, false);
    cmd.warmup_s = parse_seconds("--warmup", warmup, true);
    if (!count.empty()) cmd.count = parse_count("--count", count);
    if (!timeout.empty()) cmd.timeout_s = parse_seconds("--timeout", timeout, false);
    if (cmd.format != "table" && cmd.format != "json")
        throw usage_error("--format '" + cmd.format + "': expected table or json");
    for (const auto &a : cmd.option_assignments)
        if (a.find('=') == std::string::npos || a.front() == '=')
            throw usage_error("--opt '" + a + "': expected KEY=VALUE or ID:KEY=VALUE");
    return cmd;
}

}  // namespace ipcbench::cli
