#include "cli/command_line.hpp"

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <sstream>

#include "cli/usage_error.hpp"
#include "cli/value_parsing.hpp"
#include "remote/agent_protocol.hpp"
#include "remote/tcp_endpoint.hpp"

namespace ipcbench::cli {

namespace po = boost::program_options;

// A paced run must send at least one message in its window, and a counted one must end within a
// day: otherwise the schedule overflows or the run waits far past --duration.
static void check_pacing(const command_line &cmd) {
    for (auto size : cmd.sizes) {
        const double rate =
            cmd.bitrate > 0 ? cmd.bitrate / (8.0 * static_cast<double>(size)) : cmd.rate;
        const std::string given =
            cmd.bitrate > 0 ? fmt::format("--bitrate {:g} with --size {} is {:.3g} messages/s",
                                          cmd.bitrate, size, rate)
                            : fmt::format("--rate {:g}", rate);
        if (cmd.count == 0 && rate * cmd.duration_s < 1)
            throw usage_error(given + ": fewer than one message in --duration " +
                              fmt::format("{:g}", cmd.duration_s) +
                              " s; raise the rate, send smaller messages or run longer");
        if (cmd.count > 0 && static_cast<double>(cmd.count) / rate > 86400)
            throw usage_error(given + fmt::format(": --count {} would take {:.3g} s (more than a "
                                                  "day); raise the rate or lower the count",
                                                  cmd.count,
                                                  static_cast<double>(cmd.count) / rate));
    }
}

command_line parse_command_line(int argc, const char *const argv[]) {
    command_line cmd;
    std::string mode = "both", sizes = "32,1K,64K", duration = "0.5", warmup = "0.2", count,
                timeout, streams, rate, affinity, repeat, cv_warn, interval, regression, token_file,
                data_port, idle_timeout, bitrate, batch;
    std::vector<std::string> plugin_lists, dirs;

    po::options_description general(
        "Usage: ipchost [options]\n\nRuns every transport plugin "
        "found (or those named) between two processes and reports "
        "throughput, latency, CPU and memory.\n\nOptions");
    general.add_options()("help,h", "show this help")("version", "show the version")(
        "list", "list the plugins and transports found")(
        "verbose,v", "with --list: also rejected plugin files and why; otherwise debug logs")(
        "describe", po::value(&cmd.describe)->value_name("ID"),
        "show a transport's options, defaults and help")(
        "plugin,p", po::value(&plugin_lists)->value_name("ID[,ID...]"),
        "transports to run: an id (pipe.fifo) or a plugin name (pipe: all of its transports); "
        "repeatable; default: all")("plugin-dir", po::value(&dirs)->value_name("DIR"),
                                    "also load plugins from DIR (searched first); repeatable")(
        "mode,m", po::value(&mode)->value_name("MODE"),
        "throughput, latency or both (default both)")(
        "size,s", po::value(&sizes)->value_name("BYTES[,BYTES...]"),
        "message sizes, suffixes K M G, at least 8 (default: 32,1K,64K for throughput and 32 "
        "for latency, where size matters little)")("duration,d",
                                                   po::value(&duration)->value_name("SECONDS"),
                                                   "timed phase of each case (default 0.5)")(
        "warmup,w", po::value(&warmup)->value_name("SECONDS"),
        "untimed traffic before each case (default 0.2)")(
        "count,n", po::value(&count)->value_name("N"),
        "time exactly N messages (round trips) per case instead of --duration")(
        "timeout", po::value(&timeout)->value_name("SECONDS"),
        "watchdog per case (default: warm-up + duration + 20 s; 300 s with --count)")(
        "opt,o", po::value(&cmd.option_assignments)->value_name("[ID:]KEY=VALUE"),
        "transport option, for every selected transport that takes KEY (or only ID); "
        "repeatable; see --describe")(
        "streams,P", po::value(&streams)->value_name("N"),
        "N parallel streams: a thread and an endpoint (set) per stream in each process")(
        "rate", po::value(&rate)->value_name("R"),
        "throughput: send R messages/s per stream, evenly paced; adds one-way latency measured "
        "from each message's scheduled send time (no coordinated omission); needs --size >= 16")(
        "bitrate", po::value(&bitrate)->value_name("BITS"),
        "like --rate, as bits/s per stream (suffixes k, M, G: 100M); the message rate follows "
        "from each size")("reverse,R", "throughput: the server process sends, the client receives")(
        "bidir", "throughput: both directions at once (two endpoints per stream)")(
        "affinity", po::value(&affinity)->value_name("SENDER_CPU,RECEIVER_CPU"),
        "pin the sending (pinging) process to one CPU and the other to another")(
        "batch", po::value(&batch)->value_name("N"),
        "throughput: hand N messages to the transport per call (send_batch/recv_batch: writev, "
        "sendmmsg, recvmmsg; stream receivers read N messages' worth per recv); default 1")(
        "zero-copy", po::value(&cmd.zero_copy)->value_name("WHEN"),
        "auto (default): write and read messages in the transport's memory (borrow/publish, "
        "take/release) where it offers that; on: only such transports; off: always copy")(
        "verify", "check every payload byte of every message; mismatches count as corrupted")(
        "repeat", po::value(&repeat)->value_name("N"),
        "run each case N times, fresh processes each time; report median and spread")(
        "cv-warn", po::value(&cv_warn)->value_name("PERCENT"),
        "warn when a figure's coefficient of variation over repetitions exceeds this (10)")(
        "interval,i", po::value(&interval)->value_name("SECONDS"),
        "report MB/s, Mbit/s, messages/s and losses every SECONDS while a case runs")(
        "histogram", po::value(&cmd.histogram_file)->value_name("FILE"),
        "write every case's full latency distribution to FILE as CSV")(
        "quiet,q", "no progress line on stderr")("format,f",
                                                 po::value(&cmd.format)->value_name("FORMAT"),
                                                 "table, json, csv or markdown (default table)")(
        "output", po::value(&cmd.output)->value_name("FILE"),
        "write the results to FILE instead of stdout")(
        "fail-on-regression", po::value(&regression)->value_name("PERCENT"),
        "compare: exit 1 when a figure got significantly worse by more than PERCENT")(
        "peer", po::value(&cmd.peer)->value_name("HOST:PORT"),
        "run the server side of each case on the `ipchost serve` agent at HOST:PORT (numeric "
        "address; default port 7451); only cross-host transports")(
        "token", po::value(&cmd.token)->value_name("TOKEN"),
        "--peer / serve: the shared secret the agent requires")(
        "token-file", po::value(&token_file)->value_name("FILE"),
        "--peer / serve: read the token from FILE (keeps it out of ps and shell history)")(
        "data-port", po::value(&data_port)->value_name("PORT[-LAST]"),
        "--peer: the agent's data endpoints listen on these ports (one per endpoint), for "
        "firewalls; default: any free port")("bind",
                                             po::value(&cmd.bind)->value_name("ADDR[:PORT]"),
                                             "serve: where to listen (default 127.0.0.1:7451)")(
        "once", "serve: exit when the first client's run is over")(
        "insecure",
        "serve: require no token at all (without --token/--token-file the agent "
        "generates one, prints it and writes it to a file only you can read)")(
        "allow-root", "serve: run although the user is root (the benchmarks run as root too)")(
        "idle-timeout", po::value(&idle_timeout)->value_name("SECONDS"),
        "serve: end a session silent for SECONDS with no request outstanding, and drop a "
        "connection without a handshake after min(SECONDS, 5) (default 10)");

    std::ostringstream help;
    help << general
         << "\nipchost compare BASE.json NEW.json [--fail-on-regression PERCENT]: per matching "
            "case, the ratio of each figure and a verdict from a Mann-Whitney U test over the "
            "repetitions (use --repeat when measuring).\n"
            "ipchost report RESULTS.json --output report.html: one self-contained HTML page with "
            "SVG charts.\n"
            "ipchost serve [--bind ADDR:PORT] [--token TOKEN | --token-file FILE | --insecure] "
            "[--once] [--allow-root]: an agent for runs from another host (ipchost --peer "
            "ADDR:PORT ...); it runs only cross-host transports from its own plugin folders.\n"
            "ipchost check [--plugin ID] [--plugin-dir DIR] [--opt KEY=VALUE]: runs the "
            "conformance suite (payload byte for byte, message boundaries, timeouts, peer close, "
            "option and address errors, leaks) against each transport; one line per check, "
            "then 'N passed, N failed'; exit code 0 only if all pass.\n"
         << "\nPlugin folders, in search order: every --plugin-dir, then IPCBENCH_PLUGIN_PATH "
            "(':'-separated), then <ipchost dir>/../lib/ipcbench/plugins.\n"
            "Exit codes: 0 all cases measured, 1 a case failed, 2 bad usage, 130 interrupted.\n";
    cmd.help_text = help.str();

    // Subcommands: `check` (conformance suite), `compare BASE NEW`, `report RESULTS`.
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && (args.front() == "check" || args.front() == "compare" ||
                          args.front() == "report" || args.front() == "serve")) {
        cmd.subcommand = args.front();
        cmd.check = cmd.subcommand == "check";
        args.erase(args.begin());
    }
    po::options_description hidden;
    hidden.add_options()("input", po::value(&cmd.inputs));
    po::options_description all;
    all.add(general).add(hidden);
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
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
    if (cmd.format != "table" && cmd.format != "json" && cmd.format != "csv" &&
        cmd.format != "markdown")
        throw usage_error("--format '" + cmd.format + "': expected table, json, csv or markdown");
    if (!streams.empty()) cmd.streams = parse_small_int("--streams", streams, 1, 64);
    if (!rate.empty()) cmd.rate = parse_positive("--rate", rate, "messages per second");
    if (!bitrate.empty()) {
        if (!rate.empty()) throw usage_error("--rate and --bitrate exclude each other");
        std::string digits = bitrate;
        double unit = 1;
        const char last = digits.empty() ? 0 : digits.back();
        if (last == 'k' || last == 'K') unit = 1e3;
        if (last == 'm' || last == 'M') unit = 1e6;
        if (last == 'g' || last == 'G') unit = 1e9;
        if (unit > 1) digits.pop_back();
        cmd.bitrate = parse_positive("--bitrate", digits, "bits per second (100M)") * unit;
        cmd.rate = cmd.bitrate / (8.0 * static_cast<double>(cmd.sizes.front()));  // checked below
    }
    if (vm.count("reverse") && vm.count("bidir"))
        throw usage_error("--reverse and --bidir exclude each other; --bidir runs both directions");
    if (vm.count("reverse")) cmd.direction = "reverse";
    if (vm.count("bidir")) cmd.direction = "bidir";
    if (!affinity.empty()) {
        auto cpus = split_list(affinity);
        if (cpus.size() != 2)
            throw usage_error("--affinity '" + affinity +
                              "': expected SENDER_CPU,RECEIVER_CPU, "
                              "e.g. 0,1");
        cmd.sender_cpu = parse_small_int("--affinity", cpus[0], 0, 4095);
        cmd.receiver_cpu = parse_small_int("--affinity", cpus[1], 0, 4095);
    }
    cmd.verify = vm.count("verify") > 0;
    if (!batch.empty()) cmd.batch = parse_small_int("--batch", batch, 1, 1024);
    if (cmd.zero_copy != "auto" && cmd.zero_copy != "on" && cmd.zero_copy != "off")
        throw usage_error("--zero-copy '" + cmd.zero_copy + "': expected auto, on or off");
    if (cmd.batch > 1 && cmd.rate > 0)
        throw usage_error(
            "--batch and --rate/--bitrate exclude each other: paced messages go "
            "one at a time, at their scheduled times");
    if (!repeat.empty()) cmd.repeat = parse_small_int("--repeat", repeat, 1, 1000);
    if (!cv_warn.empty()) cmd.cv_warning = parse_positive("--cv-warn", cv_warn, "percent") / 100;
    if (!interval.empty()) cmd.interval_s = parse_seconds("--interval", interval, false);
    cmd.quiet = vm.count("quiet") > 0;
    cmd.format_given = vm.count("format") > 0;
    if (!regression.empty())
        cmd.fail_on_regression = parse_positive("--fail-on-regression", regression, "percent");
    if (cmd.rate > 0) {
        for (auto size : cmd.sizes)
            if (size < 16)
                throw usage_error(
                    "--rate needs messages of at least 16 bytes (a sequence number "
                    "and the scheduled send time); --size " +
                    std::to_string(size) + " is smaller");
        if (!vm.count("mode")) cmd.modes = {"throughput"};
        check_pacing(cmd);
    }
    if (!token_file.empty()) {
        if (!cmd.token.empty()) throw usage_error("--token and --token-file exclude each other");
        try {
            cmd.token = remote::read_token_file(token_file);
        } catch (const std::exception &e) {
            throw usage_error(std::string("--token-file: ") + e.what());
        }
    }
    if (!data_port.empty()) {
        auto dash = data_port.find('-');
        cmd.data_port_first = parse_small_int("--data-port", data_port.substr(0, dash), 1, 65535);
        cmd.data_port_last = dash == std::string::npos
                                 ? cmd.data_port_first
                                 : parse_small_int("--data-port", data_port.substr(dash + 1),
                                                   cmd.data_port_first, 65535);
    }
    cmd.once = vm.count("once") > 0;
    cmd.insecure = vm.count("insecure") > 0;
    cmd.allow_root = vm.count("allow-root") > 0;
    if (cmd.insecure && !cmd.token.empty())
        throw usage_error("--insecure means no token; drop --token/--token-file or --insecure");
    if (!idle_timeout.empty())
        cmd.idle_timeout_s = parse_seconds("--idle-timeout", idle_timeout, false);
    if (!cmd.peer.empty()) {
        try {
            remote::parse_host_port(cmd.peer, remote::default_port);
        } catch (const std::exception &e) {
            throw usage_error(std::string("--peer ") + e.what() +
                              "; expected HOST:PORT with a "
                              "numeric address");
        }
    }
    if (cmd.subcommand == "serve") {
        try {
            remote::parse_host_port(cmd.bind, remote::default_port);
        } catch (const std::exception &e) {
            throw usage_error(std::string("--bind ") + e.what());
        }
    }
    if (cmd.subcommand.empty() && !cmd.inputs.empty())
        throw usage_error("unexpected argument '" + cmd.inputs.front() + "'; see ipchost --help");
    if (cmd.subcommand == "compare" && cmd.inputs.size() != 2)
        throw usage_error("compare needs two result files: ipchost compare BASE.json NEW.json");
    if (cmd.subcommand == "report" && cmd.inputs.size() != 1)
        throw usage_error(
            "report needs one result file: ipchost report RESULTS.json --output "
            "report.html");
    for (const auto &a : cmd.option_assignments)
        if (a.find('=') == std::string::npos || a.front() == '=')
            throw usage_error("--opt '" + a + "': expected KEY=VALUE or ID:KEY=VALUE");
    return cmd;
}

}  // namespace ipcbench::cli
