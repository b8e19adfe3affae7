#include "cli/command_line.hpp"

#include "stats/summary_statistics.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <tuple>

#include "cli/option_reference.hpp"
#include "cli/usage_error.hpp"
#include "cli/value_parsing.hpp"
#include "platform/stream_socket.hpp"
#include "remote/agent_labels.hpp"
#include "remote/agent_protocol.hpp"
#include "remote/tcp_endpoint.hpp"
#include "report/result_columns.hpp"
#include "text/suggestion.hpp"

namespace ipcbench::cli {

namespace po = boost::program_options;

namespace {

// The options as typed, before they are checked and turned into the command_line.
struct typed_options {
    std::string mode = "both", sizes = "32,1K,64K", duration = "0.5", warmup = "0.2", count,
                timeout, streams, rate, affinity, repeat, cv_warn, interval, regression, token_file,
                data_port, idle_timeout, max_sessions, max_sessions_per_client, from, agents_file,
                pairs, sample, seed, concurrency, gap, bitrate, batch, burst, zero_copy = "auto",
                io = "auto", threads, format = "table", peer, token, bind = "127.0.0.1", lang = "c",
                dir, memory_budget, allow_ports, columns, token_env, precision, rounds = "auto",
                budget, threshold, base_ipchost, new_ipchost;
    std::vector<std::string> plugin_lists, dirs, allow_connect, allow_peer, allow_unbound,
        allow_option, kit_dirs, impls, fleet_agents, labels, base_args, new_args;
};

po::options_description general_options(typed_options &t, command_line &cmd) {
    po::options_description d("General");
    auto add = d.add_options();
    add("help,h",
        "show this help (--format man: the man page; markdown: the README's option section)");
    add("version", "show the versions of ipchost and of the plugin ABI it speaks");
    add("list",
        "list the plugins and transports found (--format json: with options and "
        "rejected files)");
    add("verbose,v", "with --list: also rejected plugin files and why; otherwise debug logs");
    add("describe", po::value(&cmd.describe)->value_name("ID"),
        "show a transport's (or every transport of a plugin's) options, defaults and help; "
        "--format json too");
    add("plugin,p", po::value(&t.plugin_lists)->value_name("ID[,ID...]"),
        "transports to run: an id (pipe.fifo) or a plugin name (pipe: all of its transports); "
        "repeatable; default: all");
    add("plugin-dir", po::value(&t.dirs)->value_name("DIR"),
        "also load plugins from DIR (searched first); repeatable");
    add("kit-dir", po::value(&t.kit_dirs)->value_name("DIR"),
        "also look for kits (workers in other languages) in DIR, a folder of kit folders or one "
        "kit's folder (searched first); repeatable");
    add("opt,o", po::value(&cmd.option_assignments)->value_name("[ID:]KEY=VALUE"),
        "transport option, for every selected transport that takes KEY (or only ID); "
        "repeatable; see --describe");
    return d;
}

po::options_description case_options(typed_options &t) {
    po::options_description d("What each case measures");
    auto add = d.add_options();
    add("mode,m", po::value(&t.mode)->value_name("MODE"),
        "throughput, latency or both (default both)");
    add("size,s", po::value(&t.sizes)->value_name("BYTES[,BYTES...]"),
        "message sizes, suffixes K M G, at least 8, and ranges FROM:TO:*FACTOR (32:1M:*4) or "
        "FROM:TO:+STEP (1K:8K:+1K) (default: 32,1K,64K for throughput and 32 for latency, "
        "where size matters little)");
    add("duration,d", po::value(&t.duration)->value_name("SECONDS"),
        "timed phase of each case (default 0.5)");
    add("warmup,w", po::value(&t.warmup)->value_name("SECONDS"),
        "untimed traffic before each case (default 0.2)");
    add("count,n", po::value(&t.count)->value_name("N"),
        "time exactly N messages (round trips) per case instead of --duration");
    add("timeout", po::value(&t.timeout)->value_name("SECONDS"),
        "watchdog per case (default: warm-up + duration + 20 s; 300 s with --count); for "
        "check, the least watchdog of each check step (default 20 to 60 s)");
    add("streams,P", po::value(&t.streams)->value_name("N"),
        "N parallel streams (1 to 20000), an endpoint (set) each in each process; past a few, "
        "--io auto multiplexes them on --threads threads (RLIMIT_NOFILE is raised as far as "
        "allowed); the table gives totals and the spread over streams");
    add("io", po::value(&t.io)->value_name("ENGINE"),
        "how each process drives its streams: threads (one per stream, blocking calls), epoll "
        "(Linux readiness: event_source, try_send, try_recv), uring or iocp (completion); auto "
        "(default) keeps threads while the streams fit --threads, else the best the transport "
        "offers (ipchost --describe ID shows which); reported with each result");
    add("threads", po::value(&t.threads)->value_name("T"),
        "event engines: threads per process multiplexing the streams (default: the CPUs this "
        "process may use; 1 with --affinity, which pins each process to one CPU)");
    add("rate", po::value(&t.rate)->value_name("R"),
        "throughput: send R messages/s per stream, evenly paced; adds one-way latency measured "
        "from each message's scheduled send time (no coordinated omission); needs --size >= 16");
    add("bitrate", po::value(&t.bitrate)->value_name("BITS"),
        "like --rate, as bits/s per stream (suffixes k, M, G: 100M); the message rate follows "
        "from each size");
    add("burst", po::value(&t.burst)->value_name("N"),
        "with --rate/--bitrate: send N messages back to back at each slot, every N/rate "
        "seconds (bursty traffic at the same average rate); one-way latency counts from the "
        "burst's slot, so queueing inside a burst shows");
    add("reverse,R", "throughput: the server process sends, the client receives");
    add("bidir", "throughput: both directions at once (two endpoints per stream)");
    add("affinity", po::value(&t.affinity)->value_name("SENDER_CPU,RECEIVER_CPU"),
        "pin the sending (pinging) process to one CPU and the other to another");
    add("batch", po::value(&t.batch)->value_name("N"),
        "throughput: hand N messages to the transport per call (send_batch/recv_batch: writev, "
        "sendmmsg, recvmmsg; stream receivers read N messages' worth per recv); default 1");
    add("zero-copy", po::value(&t.zero_copy)->value_name("WHEN"),
        "auto (default): write and read messages in the transport's memory (borrow/publish, "
        "take/release) where it offers that; on: only such transports; off: always copy");
    add("verify", "check every payload byte of every message; mismatches count as corrupted");
    add("memory-budget", po::value(&t.memory_budget)->value_name("BYTES"),
        "most the message buffers of one worker may take (streams x directions x --batch x "
        "--size, twice for the receiver); a case over it is refused with the figure before it "
        "starts; default 4G for a run, 512M for serve (per client)");
    add("impl", po::value(&t.impls)->value_name("[ROLE=]KIT[,KIT...]"),
        "who runs a side: native (ipchost's own worker, the default) or a kit (ipchost --list "
        "shows them); ROLE is sender, receiver, pinger (the sender side) or ponger; without a "
        "ROLE the kit runs both sides; lists run each case once per pairing "
        "(--impl receiver=native,go: the C and the Go reader side by side); repeatable");
    add("interval,i", po::value(&t.interval)->value_name("SECONDS"),
        "report MB/s, Mbit/s, messages/s and losses every SECONDS while a case runs");
    return d;
}

po::options_description output_options(typed_options &t, command_line &cmd) {
    po::options_description d("Repetitions and output");
    auto add = d.add_options();
    add("repeat", po::value(&t.repeat)->value_name("N|auto"),
        "run each case N times, fresh processes each time; report the median repetition, the "
        "spread and the median's 95 % interval; auto: until that interval is within --precision "
        "(5 %), 6 to 30 times");
    add("precision", po::value(&t.precision)->value_name("PERCENT"),
        "repeat each case until the 95 % interval of its headline figure's median (MB/s, or the "
        "round trip's p50) is within +/-PERCENT of it, at least 6 times and at most --repeat N "
        "(30); a case that does not get there says so");
    add("cv-warn", po::value(&t.cv_warn)->value_name("PERCENT"),
        "warn when a figure's coefficient of variation over repetitions exceeds this (10)");
    add("histogram", po::value(&cmd.histogram_file)->value_name("FILE"),
        "write every case's full latency distribution to FILE as CSV");
    add("quiet,q", "no progress line on stderr");
    add("format,f", po::value(&t.format)->value_name("FORMAT"),
        (report::run_format_names() + " (default table); --list and --describe: table or json")
            .c_str());
    add("output", po::value(&cmd.output)->value_name("FILE"),
        "write the results to FILE instead of stdout");
    add("wide", po::bool_switch(&cmd.layout.wide),
        "table: every column (by default the table fits 120 characters: the figures read "
        "first, then what fits; a line names the rest)");
    add("columns", po::value(&t.columns)->value_name("KEY[,KEY...]"),
        "table and Markdown: exactly these columns, by their CSV names (transport,mb_per_sec,"
        "latency_p99_ns,...)");
    add("per-stream", po::bool_switch(&cmd.per_stream_list),
        "JSON: list every stream of a case (by default only up to 64; stream_spread sums them "
        "up either way)");
    add("fail-on-regression", po::value(&t.regression)->value_name("PERCENT"),
        "ab, compare: the gate: exit 1 when a gated figure's whole 95 % interval lies past "
        "PERCENT on the bad side (Holm across the gated figures), 0 when every one is faster or "
        "within +/-PERCENT, 3 when that is undecided or cannot be judged; also 1 when nothing "
        "matched, or a case is in one file only");
    add("allow-missing",
        "ab, compare: with --fail-on-regression, cases on one side only are listed but do not "
        "fail the gate");
    return d;
}

po::options_description ab_options_of(typed_options &t) {
    po::options_description d("Base against new (ab) and the gate");
    auto add = d.add_options();
    add("base-ipchost", po::value(&t.base_ipchost)->value_name("PATH"),
        "ab: the ipchost that runs the base side (default: this one); held to the plugin rules");
    add("new-ipchost", po::value(&t.new_ipchost)->value_name("PATH"),
        "ab: the ipchost that runs the new side (default: this one)");
    add("base-arg", po::value(&t.base_args)->value_name("ARG"),
        "ab: a run argument for the base side only, one word each: --base-arg=--plugin-dir "
        "--base-arg=old/ or --base-arg=--opt=pipe_size=4K; repeatable");
    add("new-arg", po::value(&t.new_args)->value_name("ARG"),
        "ab: a run argument for the new side only; repeatable");
    add("rounds", po::value(&t.rounds)->value_name("N|auto"),
        "ab: rounds of base and new, each side its own ipchost and worker processes per round, "
        "in ABBA order; auto (default): until every gated figure is decided, --budget ends or "
        "200 rounds");
    add("budget", po::value(&t.budget)->value_name("SECONDS"),
        "ab: with --rounds auto, start no round after SECONDS (default 900)");
    add("threshold", po::value(&t.threshold)->value_name("PERCENT"),
        "ab, compare: the change that counts, either way (default 5, or --fail-on-regression's)");
    add("gate-cpu",
        "ab, compare: also gate the sender's and receiver's CPU time per message (never CPU %, "
        "which rises with throughput)");
    return d;
}

po::options_description new_plugin_options(typed_options &t) {
    po::options_description d("New plugin");
    auto add = d.add_options();
    add("lang", po::value(&t.lang)->value_name("LANG"),
        "new-plugin: c (default) or cpp (C++17 on ipcbench/transport.hpp)");
    add("dir", po::value(&t.dir)->value_name("DIR"),
        "new-plugin: where to write the project (default ./NAME; must not exist or be empty)");
    return d;
}

po::options_description fleet_options_of(typed_options &t) {
    po::options_description d("A fleet");
    auto add = d.add_options();
    add("agent", po::value(&t.fleet_agents)->value_name("HOST:PORT"),
        "fleet: an agent (numeric address, or dns:NAME:PORT for every address behind a name); "
        "repeatable");
    add("agents", po::value(&t.agents_file)->value_name("FILE|dns:NAME:PORT"),
        "fleet: the agents, one a line: HOST:PORT or dns:NAME:PORT, then labels KEY=VALUE "
        "(zone=a node=n1); '#' starts a comment; or dns:NAME:PORT itself (a headless Service: "
        "every address behind the name)");
    add("pairs", po::value(&t.pairs)->value_name("mesh|star=AGENT"),
        "fleet: every ordered pair in round-robin rounds (mesh, the default), or one agent "
        "(address or label value) against every other, both ways");
    add("sample", po::value(&t.sample)->value_name("K"),
        "fleet: K random ordered pairs instead (the same --seed, the same pairs)");
    add("seed", po::value(&t.seed)->value_name("S"), "fleet: the seed of --sample (default 1)");
    add("concurrency", po::value(&t.concurrency)->value_name("C"),
        "fleet: run up to C pairs of a round at once (no agent is in two; default 1: each pair "
        "alone)");
    add("gap", po::value(&t.gap)->value_name("SECONDS"),
        "fleet: idle time between rounds (default 0)");
    return d;
}

po::options_description remote_options(typed_options &t) {
    po::options_description d("Two hosts");
    auto add = d.add_options();
    add("peer", po::value(&t.peer)->value_name("HOST:PORT"),
        "run the server side of each case on the `ipchost serve` agent at HOST:PORT (numeric "
        "address; default port 7451); only cross-host transports");
    add("token", po::value(&t.token)->value_name("TOKEN"),
        "--peer / serve: the shared secret the agent requires");
    add("token-file", po::value(&t.token_file)->value_name("FILE"),
        "--peer / serve: read the token from FILE (keeps it out of ps and shell history)");
    add("token-env", po::value(&t.token_env)->value_name("NAME"),
        "--peer / serve / fleet: read the token from the environment variable NAME (a "
        "Kubernetes Secret), which is then removed so no worker or plugin inherits it");
    add("from", po::value(&t.from)->value_name("HOST:PORT"),
        "--peer: run the client side of each case on the agent at HOST:PORT instead of here "
        "(agent to agent: it becomes a --peer client of the other; same token); results come "
        "back here");
    add("data-port", po::value(&t.data_port)->value_name("PORT[-LAST]"),
        "--peer / fleet: the (destination) agent's data endpoints listen on these ports (one "
        "per endpoint), for firewalls; default: any free port");
    add("bind", po::value(&t.bind)->value_name("ADDR[:PORT]"),
        "serve: where to listen (default 127.0.0.1:7451)");
    add("once", "serve: exit when the first client's run is over");
    add("insecure",
        "serve: require no token at all (without --token/--token-file the agent generates one, "
        "prints it and writes it to a file only you can read)");
    add("allow-root", "serve: run although the user is root (the benchmarks run as root too)");
    add("idle-timeout", po::value(&t.idle_timeout)->value_name("SECONDS"),
        "serve: end a session silent for SECONDS with no request outstanding, and drop a "
        "connection without a handshake after min(SECONDS, 5) (default 10)");
    add("max-sessions", po::value(&t.max_sessions)->value_name("N"),
        "serve: run up to N clients' sessions at once, each with its own worker (default 1; "
        "one more is told busy); results record how many ran beside them");
    add("max-sessions-per-client", po::value(&t.max_sessions_per_client)->value_name("N"),
        "serve: sessions at once for one client (every loopback address counts as one, an "
        "IPv6 /64 as one), at most --max-sessions (default: half of it, rounded up), so one "
        "client cannot take every session");
    add("no-peer-runs",
        "serve: refuse clients that ask this agent to run cases against other agents "
        "(--from); by default it does, reaching only agents --allow-peer names that prove they "
        "hold the token");
    add("allow-ports", po::value(&t.allow_ports)->value_name("FIRST-LAST"),
        "serve: the ports data endpoints may listen on (default 1024-65535: no privileged "
        "port); they always listen on the address the client reached the agent by");
    add("allow-connect", po::value(&t.allow_connect)->value_name("ADDR[,ADDR...]"),
        "serve: numeric addresses the agent's connectors may reach besides the client's own "
        "(default: only the client's); repeatable");
    add("allow-peer", po::value(&t.allow_peer)->value_name("ADDR[/BITS][,...]"),
        "serve: the agents this agent's peer client may run cases against (--from), by "
        "address or network (10.244.0.0/16: a cluster's pods); none by default; repeatable");
    add("allow-unbound", po::value(&t.allow_unbound)->value_name("ID"),
        "serve: let transport ID's creators take whoever connects first (a plugin without the "
        "ipcb.peer-binding/1 extension); every other creator serves only its client; "
        "repeatable");
    add("label", po::value(&t.labels)->value_name("KEY=VALUE"),
        "serve: a label naming where this agent runs (node=n1, zone=a), told to every client "
        "and carried by every fleet row it is in; a run: a label of its result (commit=abc123), "
        "which ipchost trend names it by; repeatable");
    add("allow-option", po::value(&t.allow_option)->value_name("ID:KEY"),
        "serve: also take transport option KEY of ID from clients (built-ins take only "
        "options that name no address, port, path or device); repeatable");
    return d;
}

double parse_bitrate(const std::string &text) {
    std::string digits = text;
    double unit = 1;
    const char last = digits.empty() ? 0 : digits.back();
    if (last == 'k' || last == 'K') unit = 1e3;
    if (last == 'm' || last == 'M') unit = 1e6;
    if (last == 'g' || last == 'G') unit = 1e9;
    if (unit > 1) digits.pop_back();
    return parse_positive("--bitrate", digits, "bits per second (100M)") * unit;
}

model::cpu_placement parse_affinity(const std::string &text) {
    auto cpus = split_list(text);
    if (cpus.size() != 2)
        throw usage_error("--affinity '" + text + "': expected SENDER_CPU,RECEIVER_CPU, e.g. 0,1");
    return {parse_small_int("--affinity", cpus[0], 0, 4095),
            parse_small_int("--affinity", cpus[1], 0, 4095)};
}

// A paced run must send at least one message in its window, and a counted one must end within a
// day: otherwise the schedule overflows or the run waits far past --duration.
void check_pacing(const command_line &cmd) {
    for (auto size : cmd.sizes) {
        const auto c = settings_for_case(cmd, "", model::measure_mode::throughput, size);
        const double rate = c.rate_per_s;
        const std::string given =
            cmd.bitrate_bits_per_s > 0
                ? fmt::format("--bitrate {:g} with --size {} is {:.3g} messages/s",
                              cmd.bitrate_bits_per_s, size, rate)
                : fmt::format("--rate {:g}", rate);
        if (size < 16)
            throw usage_error(
                "--rate needs messages of at least 16 bytes (a sequence number and the "
                "scheduled send time); --size " +
                std::to_string(size) + " is smaller");
        if (c.count == 0 && rate * c.duration_s < 1)
            throw usage_error(given + ": fewer than one message in --duration " +
                              fmt::format("{:g}", c.duration_s) +
                              " s; raise the rate, send smaller messages or run longer");
        if (c.count > 0 && static_cast<double>(c.count) / rate > 86400)
            throw usage_error(given + fmt::format(": --count {} would take {:.3g} s (more than a "
                                                  "day); raise the rate or lower the count",
                                                  c.count, static_cast<double>(c.count) / rate));
    }
}

// Every case of the run within the budget before any worker starts.
void check_memory_budget(const command_line &cmd) {
    for (auto mode : cmd.modes)
        for (auto size : mode == model::measure_mode::latency ? cmd.latency_sizes : cmd.sizes) {
            const auto c = settings_for_case(cmd, "", mode, size);
            const std::string why =
                model::over_memory_budget(c, cmd.memory_budget, "raise --memory-budget");
            if (!why.empty()) throw usage_error(fmt::format("--size {}: ", size) + why);
        }
}

void apply_mode_and_sizes(const po::variables_map &vm, const typed_options &t, command_line &cmd) {
    if (t.mode == "both")
        cmd.modes = {model::measure_mode::throughput, model::measure_mode::latency};
    else if (auto m = model::measure_mode_from(t.mode))
        cmd.modes = {*m};
    else
        throw usage_error("--mode '" + t.mode + "': expected throughput, latency or both");
    cmd.sizes = parse_size_list("--size", t.sizes);
    cmd.latency_sizes = vm.count("size") ? cmd.sizes : std::vector<std::uint64_t>{32};
}

void apply_case_options(const po::variables_map &vm, const typed_options &t, command_line &cmd) {
    model::case_settings &c = cmd.case_defaults;
    apply_mode_and_sizes(vm, t, cmd);
    c.duration_s = parse_seconds("--duration", t.duration, false);
    c.warmup_s = parse_seconds("--warmup", t.warmup, true);
    cmd.warmup_given = vm.count("warmup") && !vm["warmup"].defaulted();
    if (!t.count.empty()) c.count = parse_count("--count", t.count);
    if (!t.timeout.empty()) c.timeout_s = parse_seconds("--timeout", t.timeout, false);
    if (!t.streams.empty())
        c.streams = parse_small_int("--streams", t.streams, 1, model::max_streams);
    if (auto e = model::io_engine_from(t.io))
        c.io = *e;
    else
        throw usage_error("--io '" + t.io + "': expected auto, threads, epoll, uring or iocp");
    if (!t.threads.empty())
        c.threads = parse_small_int("--threads", t.threads, 1, model::max_threads);
    if (!t.rate.empty()) c.rate_per_s = parse_positive("--rate", t.rate, "messages per second");
    if (!t.bitrate.empty()) {
        if (!t.rate.empty()) throw usage_error("--rate and --bitrate exclude each other");
        cmd.bitrate_bits_per_s = parse_bitrate(t.bitrate);
    }
    if (vm.count("reverse") && vm.count("bidir"))
        throw usage_error("--reverse and --bidir exclude each other; --bidir runs both directions");
    if (vm.count("reverse")) c.direction = model::traffic_direction::reverse;
    if (vm.count("bidir")) c.direction = model::traffic_direction::bidir;
    if (!t.affinity.empty()) c.affinity = parse_affinity(t.affinity);
    c.verify = vm.count("verify") > 0;
    if (!t.batch.empty()) c.batch = parse_small_int("--batch", t.batch, 1, model::max_batch);
    if (auto z = model::zero_copy_policy_from(t.zero_copy))
        c.zero_copy = *z;
    else
        throw usage_error("--zero-copy '" + t.zero_copy + "': expected auto, on or off");
    const bool paced = c.rate_per_s > 0 || cmd.bitrate_bits_per_s > 0;
    if (c.batch > 1 && paced)
        throw usage_error(
            "--batch and --rate/--bitrate exclude each other: paced messages go one at a time, "
            "at their scheduled times");
    if (!t.burst.empty()) {
        if (!paced) throw usage_error("--burst shapes paced traffic: add --rate or --bitrate");
        c.burst = parse_small_int("--burst", t.burst, 1, model::max_batch);
    }
    if (!t.interval.empty()) c.interval_s = parse_seconds("--interval", t.interval, false);
    if (paced) {
        if (!vm.count("mode")) cmd.modes = {model::measure_mode::throughput};
        check_pacing(cmd);
    }
    if (!t.memory_budget.empty())
        cmd.memory_budget =
            parse_byte_count("--memory-budget", t.memory_budget, std::uint64_t{1} << 40);
    check_memory_budget(cmd);
    for (const auto &a : cmd.option_assignments)
        if (a.find('=') == std::string::npos || a.front() == '=')
            throw usage_error("--opt '" + a + "': expected KEY=VALUE or ID:KEY=VALUE");
}

// KIT (1 to 32 of a-z, 0-9, '_', '-') or KIT:API (API: 1 to 16 of them).
bool kit_name_shape(const std::string &name) {
    const auto colon = name.find(':');
    auto part = [](const std::string &p, std::size_t max) {
        return !p.empty() && p.size() <= max &&
               p.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == std::string::npos;
    };
    if (colon == std::string::npos) return part(name, 32);
    return part(name.substr(0, colon), 32) && part(name.substr(colon + 1), 16);
}

// --impl values: ROLE=LIST (sender and pinger name the sending side, receiver and ponger the
// other; the sides' lists multiply) or LIST (each kit on both sides), not both kinds.
std::vector<std::pair<std::string, std::string>> parse_implementations(
    const std::vector<std::string> &values) {
    std::vector<std::string> senders, receivers, both;
    for (const auto &value : values) {
        const auto eq = value.find('=');
        const std::string role = eq == std::string::npos ? "" : value.substr(0, eq);
        auto &list = role.empty()                             ? both
                     : role == "sender" || role == "pinger"   ? senders
                     : role == "receiver" || role == "ponger" ? receivers
                                                              : both;
        if (!role.empty() && &list == &both)
            throw usage_error("--impl '" + value +
                              "': the role must be sender, receiver, pinger or ponger");
        for (const auto &name :
             split_list(eq == std::string::npos ? value : value.substr(eq + 1))) {
            if (!kit_name_shape(name))
                throw usage_error("--impl '" + value + "': '" + name +
                                  "' is not a kit name (native, a kit or KIT:API as ipchost "
                                  "--list shows)");
            if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
        }
    }
    if (!both.empty() && (!senders.empty() || !receivers.empty()))
        throw usage_error(
            "--impl KIT (both sides) and --impl ROLE=KIT exclude each other; name "
            "each side's list: --impl sender=native --impl receiver=native,go");
    std::vector<std::pair<std::string, std::string>> pairs;
    pairs.reserve(both.size() + senders.size() * receivers.size() + 1);
    for (const auto &k : both) pairs.emplace_back(k, k);
    if (senders.empty()) senders = {"native"};
    if (receivers.empty()) receivers = {"native"};
    if (both.empty())
        for (const auto &sender : senders)
            for (const auto &receiver : receivers) pairs.emplace_back(sender, receiver);
    return pairs;
}

// --repeat N, --repeat auto, --precision PERCENT: how many times a case runs, or until what.
void parse_repetitions(const typed_options &t, command_line &cmd) {
    const bool automatic = t.repeat == "auto";
    if (!t.repeat.empty() && !automatic)
        cmd.repeat = parse_small_int("--repeat", t.repeat, 1, 1000,
                                     " or auto" + text::did_you_mean(t.repeat, {"auto"}));
    if (!automatic && t.precision.empty()) return;
    cmd.precision = t.precision.empty()
                        ? command_line::default_precision
                        : parse_positive("--precision", t.precision, "percent") / 100;
    if (cmd.precision > 0.5)
        throw usage_error("--precision '" + t.precision +
                          "': at most 50 (percent of the median, either side)");
    if (automatic || t.repeat.empty()) cmd.repeat = command_line::default_repeat_cap;
    if (cmd.repeat < static_cast<int>(stats::samples_for_median_interval))
        throw usage_error(fmt::format(
            "--precision needs --repeat {} or more: a median's 95 % interval takes {} repetitions",
            stats::samples_for_median_interval, stats::samples_for_median_interval));
}

void apply_output_options(const po::variables_map &vm, const typed_options &t, command_line &cmd) {
    parse_repetitions(t, cmd);
    if (!t.cv_warn.empty())
        cmd.cv_warning = parse_positive("--cv-warn", t.cv_warn, "percent") / 100;
    cmd.quiet = vm.count("quiet") > 0;
    cmd.format_given = vm.count("format") > 0;
    if (cmd.help) {
        if (t.format != "table" && t.format != "text" && t.format != "man" &&
            t.format != "markdown" && t.format != "words")
            throw usage_error("--help --format '" + t.format +
                              "': expected text, man (the man page), markdown (the README "
                              "section) or words (for shell completion)");
        cmd.help_format = t.format == "table" ? "text" : t.format;
        return;
    }
    if (cmd.list || !cmd.describe.empty()) {
        if (t.format != "table" && t.format != "json")
            throw usage_error(std::string(cmd.list ? "--list" : "--describe") + " --format '" +
                              t.format + "': expected table or json");
        cmd.listing_json = t.format == "json";
        return;
    }
    for (const auto &key : split_list(t.columns)) {
        if (report::find_column(key) == nullptr) {
            std::vector<std::string> keys;
            for (const auto &c : report::result_columns()) keys.emplace_back(c.key);
            throw usage_error("--columns '" + key + "': no such column" +
                              text::did_you_mean(key, keys) + "; the columns are " +
                              report::column_keys());
        }
        cmd.layout.columns.push_back(key);
    }
    if (cmd.layout.wide && !cmd.layout.columns.empty())
        throw usage_error("--wide and --columns exclude each other: --wide shows every column");
    bool known = false;
    const bool rendering_a_file = cmd.subcommand == "report";  // html too
    for (const auto &f : report::output_formats())
        if ((f.for_runs || rendering_a_file) && t.format == f.name) {
            cmd.format = f.format;
            known = true;
        }
    if (!known)
        throw usage_error("--format '" + t.format + "': expected " + report::run_format_names());
    if (!t.regression.empty())
        cmd.fail_on_regression = parse_positive("--fail-on-regression", t.regression, "percent");
    cmd.allow_missing = vm.count("allow-missing") > 0;
}

// Options that belong to some commands only ("" is a run): given elsewhere they would be
// ignored, so they are refused, naming the command they belong to.
void check_option_scope(const po::variables_map &vm, const command_line &cmd) {
    struct scope {
        const char *option;
        std::vector<std::string> commands;
    };
    static const scope scopes[] = {
        {"bind", {"serve"}},
        {"once", {"serve"}},
        {"insecure", {"serve"}},
        {"allow-root", {"serve"}},
        {"idle-timeout", {"serve"}},
        {"max-sessions", {"serve"}},
        {"max-sessions-per-client", {"serve"}},
        {"no-peer-runs", {"serve"}},
        {"label", {"serve", "", "ab"}},
        {"from", {""}},
        {"agent", {"fleet"}},
        {"agents", {"fleet"}},
        {"pairs", {"fleet"}},
        {"sample", {"fleet"}},
        {"seed", {"fleet"}},
        {"concurrency", {"fleet"}},
        {"gap", {"fleet"}},
        {"fail-on-regression", {"compare", "ab"}},
        {"allow-missing", {"compare", "ab"}},
        {"threshold", {"compare", "ab"}},
        {"gate-cpu", {"compare", "ab"}},
        {"base-ipchost", {"ab"}},
        {"new-ipchost", {"ab"}},
        {"base-arg", {"ab"}},
        {"new-arg", {"ab"}},
        {"rounds", {"ab"}},
        {"budget", {"ab"}},
        {"lang", {"new-plugin"}},
        {"dir", {"new-plugin"}},
        {"peer", {"", "ab"}},
        {"data-port", {"", "fleet", "ab"}},
        {"token", {"", "serve", "fleet"}},
        {"token-file", {"", "serve", "fleet", "ab"}},
        {"token-env", {"", "serve", "fleet"}},
        {"allow-ports", {"serve"}},
        {"allow-connect", {"serve"}},
        {"allow-peer", {"serve"}},
        {"allow-unbound", {"serve"}},
        {"allow-option", {"serve"}},
        {"memory-budget", {"", "serve", "ab"}},
        {"impl", {"", "check", "ab"}},
    };
    if (cmd.help || cmd.version) return;
    const std::string here = cmd.list                 ? std::string("--list")
                             : !cmd.describe.empty()  ? std::string("--describe")
                             : cmd.subcommand.empty() ? std::string("a run")
                                                      : "ipchost " + cmd.subcommand;
    const std::string current = cmd.list || !cmd.describe.empty() ? "-" : cmd.subcommand;
    for (const auto &s : scopes) {
        if (!vm.count(s.option)) continue;
        bool allowed = false;
        std::string owners;
        for (const auto &c : s.commands) {
            allowed = allowed || c == current;
            owners += (owners.empty() ? "" : " and ") +
                      (c.empty() ? std::string("a run (ipchost --peer ...)") : "ipchost " + c);
        }
        if (!allowed)
            throw usage_error(fmt::format("--{} is an option of {}, not of {}; drop it here",
                                          s.option, owners, here));
    }
}

remote::host_port parse_address(const char *flag, const std::string &text, const char *hint) {
    try {
        return remote::parse_host_port(text, remote::default_port);
    } catch (const std::exception &e) {
        throw usage_error(std::string(flag) + " " + e.what() + hint);
    }
}

// --data-port PORT[-LAST] as its first and last port; {0, 0} when not given.
std::pair<int, int> parse_data_ports(const std::string &text) {
    if (text.empty()) return {0, 0};
    const auto dash = text.find('-');
    const int first = parse_small_int("--data-port", text.substr(0, dash), 1, 65535);
    if (dash == std::string::npos) return {first, first};
    return {first, parse_small_int("--data-port", text.substr(dash + 1), first, 65535)};
}

// The token from --token, --token-file or --token-env: one of them at most.
std::string read_token(const typed_options &t) {
    if ((!t.token.empty()) + (!t.token_file.empty()) + (!t.token_env.empty()) > 1)
        throw usage_error("--token, --token-file and --token-env exclude each other; give one");
    if (!t.token_env.empty()) {
        try {
            return remote::read_token_variable(t.token_env);
        } catch (const std::exception &e) {
            throw usage_error(std::string("--token-env: ") + e.what());
        }
    }
    if (t.token_file.empty()) return t.token;
    try {
        return remote::read_token_file(t.token_file);
    } catch (const std::exception &e) {
        throw usage_error(std::string("--token-file: ") + e.what());
    }
}

// serve: what the operator allows the agent's endpoints beyond the defaults.
void apply_agent_rules(const typed_options &t, remote::operator_policy &rules) {
    if (!t.allow_ports.empty()) {
        const auto dash = t.allow_ports.find('-');
        if (dash == std::string::npos)
            throw usage_error("--allow-ports '" + t.allow_ports + "': expected FIRST-LAST, e.g. " +
                              "5300-5399");
        rules.first_port =
            parse_small_int("--allow-ports", t.allow_ports.substr(0, dash), 1, 65535);
        rules.last_port = parse_small_int("--allow-ports", t.allow_ports.substr(dash + 1),
                                          rules.first_port, 65535);
    }
    for (const auto &list : t.allow_connect)
        for (const auto &host : split_list(list)) {
            const std::string canonical = platform::canonical_address(host);
            if (canonical.empty())
                throw usage_error("--allow-connect '" + host +
                                  "': expected a numeric IPv4 or IPv6 address");
            rules.connect_hosts.push_back(canonical);
        }
    for (const auto &list : t.allow_peer)
        for (const auto &item : split_list(list)) {
            try {
                rules.peer_networks.push_back(remote::parse_prefix(item));
            } catch (const std::invalid_argument &e) {
                throw usage_error(std::string("--allow-peer ") + e.what() +
                                  ", e.g. 10.0.0.7 or 10.244.0.0/16");
            }
        }
    for (const auto &id : t.allow_unbound) rules.unbound_transports.insert(id);
    for (const auto &item : t.allow_option) {
        const auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
            throw usage_error("--allow-option '" + item +
                              "': expected ID:KEY, e.g. socket.tcp:bind");
        rules.extra_options[item.substr(0, colon)].insert(item.substr(colon + 1));
    }
    if (!t.memory_budget.empty())
        rules.memory_budget =
            parse_byte_count("--memory-budget", t.memory_budget, std::uint64_t{1} << 40);
}

void apply_remote_options(const po::variables_map &vm, const typed_options &t, command_line &cmd) {
    const std::string token = read_token(t);
    if (!t.peer.empty()) {
        remote::agent_address agent;
        agent.address =
            parse_address("--peer", t.peer, "; expected HOST:PORT with a numeric address");
        agent.token = token;
        std::tie(agent.data_port_first, agent.data_port_last) = parse_data_ports(t.data_port);
        cmd.agent = agent;
    }
    if (!t.from.empty()) {
        if (!cmd.agent)
            throw usage_error(
                "--from names the agent that runs the client side; --peer must name the one "
                "that runs the server side (ipchost --from A:7451 --peer B:7451 ...)");
        remote::agent_address from = *cmd.agent;
        from.address =
            parse_address("--from", t.from, "; expected HOST:PORT with a numeric address");
        from.data_port_first = from.data_port_last = 0;
        cmd.from_agent = from;
    }
    auto &serve = cmd.serve;
    serve.token = token;
    serve.once = vm.count("once") > 0;
    serve.insecure = vm.count("insecure") > 0;
    serve.allow_root = vm.count("allow-root") > 0;
    serve.peer_runs = vm.count("no-peer-runs") == 0;
    if (serve.insecure && !token.empty())
        throw usage_error(
            "--insecure means no token; drop --token/--token-file/--token-env or --insecure");
    if (!t.idle_timeout.empty())
        serve.idle_timeout_s = parse_seconds("--idle-timeout", t.idle_timeout, false);
    if (!t.max_sessions.empty())
        serve.max_sessions = parse_small_int("--max-sessions", t.max_sessions, 1, 64);
    serve.max_sessions_per_client = (serve.max_sessions + 1) / 2;
    if (!t.max_sessions_per_client.empty())
        serve.max_sessions_per_client = parse_small_int(
            "--max-sessions-per-client", t.max_sessions_per_client, 1, serve.max_sessions);
    if (cmd.subcommand == "serve") serve.bind = parse_address("--bind", t.bind, "");
    for (const auto &word : t.labels) {
        try {
            serve.labels.insert(remote::parse_label(word));
        } catch (const std::invalid_argument &e) {
            throw usage_error(std::string("--label: ") + e.what());
        }
    }
    if (serve.labels.size() > remote::max_labels)
        throw usage_error("--label: more than " + std::to_string(remote::max_labels) + " labels");
    apply_agent_rules(t, serve.rules);
}

void apply_fleet_options(const typed_options &t, command_line &cmd) {
    auto &f = cmd.fleet;
    f.agents = t.fleet_agents;
    f.agents_file = t.agents_file;
    if (!t.pairs.empty()) {
        if (t.pairs != "mesh" && (t.pairs.rfind("star=", 0) != 0 || t.pairs.size() == 5))
            throw usage_error("--pairs '" + t.pairs +
                              "': expected mesh or star=AGENT (its address or a label value)");
        f.pairs = t.pairs;
    }
    if (!t.sample.empty()) {
        if (!t.pairs.empty())
            throw usage_error("--sample draws its own pairs; drop --pairs or --sample");
        f.sample = static_cast<std::size_t>(parse_small_int("--sample", t.sample, 1, 1'000'000));
    }
    if (!t.seed.empty()) f.seed = parse_count("--seed", t.seed);
    if (!t.concurrency.empty())
        f.concurrency =
            static_cast<std::size_t>(parse_small_int("--concurrency", t.concurrency, 1, 512));
    if (!t.gap.empty()) f.gap_s = parse_seconds("--gap", t.gap, true);
    std::tie(f.data_port_first, f.data_port_last) = parse_data_ports(t.data_port);
    if (cmd.subcommand == "fleet" && cmd.agent)
        throw usage_error("ipchost fleet takes its agents from --agent / --agents, not --peer");
}

// The verdicts' threshold: --threshold, else --fail-on-regression's, else 5 %.
void apply_gate_options(const po::variables_map &vm, const typed_options &t, command_line &cmd) {
    cmd.gate_cpu = vm.count("gate-cpu") > 0;
    if (cmd.fail_on_regression >= 100)
        throw usage_error("--fail-on-regression '" + t.regression +
                          "': below 100 (percent: a change by a factor, either way)");
    if (!t.threshold.empty()) {
        cmd.threshold = parse_positive("--threshold", t.threshold, "percent") / 100;
        if (cmd.threshold >= 1)
            throw usage_error("--threshold '" + t.threshold + "': below 100 (percent)");
        if (cmd.fail_on_regression >= 0 &&
            std::fabs(cmd.fail_on_regression / 100 - cmd.threshold) > 1e-12)
            throw usage_error(
                "--threshold and --fail-on-regression name the gate's threshold "
                "twice, differently; give one");
    } else if (cmd.fail_on_regression >= 0) {
        cmd.threshold = cmd.fail_on_regression / 100;
    }
}

// What ab gives a side: every run option as typed, less ab's own and the output's, and less
// those the side names itself (a side's --size or --plugin-dir replaces the run's), then the
// side's own. The side's words are parsed here, so a mistyped one is refused before any round.
std::vector<std::string> ab_side_args(const po::parsed_options &parsed,
                                      const std::vector<std::string> &own,
                                      const po::options_description &all, const char *flag) {
    static const std::set<std::string> ab_only = {
        "base-ipchost",  "new-ipchost", "base-arg",
        "new-arg",       "rounds",      "budget",
        "threshold",     "gate-cpu",    "fail-on-regression",
        "allow-missing", "format",      "output",
        "quiet",         "wide",        "columns",
        "verbose",       "input"};
    std::set<std::string> replaced;
    try {
        for (const auto &o : po::command_line_parser(own).options(all).run().options) {
            if (ab_only.count(o.string_key) || o.string_key == "repeat")
                throw usage_error(std::string(flag) + " --" + o.string_key +
                                  ": an option of ab itself, not of a side");
            replaced.insert(o.string_key);
        }
    } catch (const po::error &e) {
        throw usage_error(std::string(flag) + ": " + e.what() +
                          " (one word each: --new-arg=--opt=pipe_size=1M)");
    }
    std::vector<std::string> out;
    for (const auto &o : parsed.options)
        if (ab_only.count(o.string_key) == 0 && replaced.count(o.string_key) == 0)
            out.insert(out.end(), o.original_tokens.begin(), o.original_tokens.end());
    out.insert(out.end(), own.begin(), own.end());
    return out;
}

void apply_ab_options(const po::variables_map &vm, const typed_options &t,
                      const po::parsed_options &parsed, const po::options_description &all,
                      command_line &cmd) {
    if (cmd.subcommand != "ab" || cmd.help) return;
    for (const char *refused : {"repeat", "precision", "histogram"})
        if (vm.count(refused))
            throw usage_error(std::string("--") + refused +
                              " is not for ipchost ab: each round runs every case once on each "
                              "side; --rounds N (or auto) sets how many rounds");
    auto &ab = cmd.ab;
    ab.base_ipchost = t.base_ipchost;
    ab.new_ipchost = t.new_ipchost;
    ab.base_args = t.base_args;
    ab.new_args = t.new_args;
    if (t.rounds != "auto")
        ab.rounds = parse_small_int("--rounds", t.rounds, 2, 1000,
                                    " or auto" + text::did_you_mean(t.rounds, {"auto"}));
    if (!t.budget.empty()) ab.budget_s = parse_seconds("--budget", t.budget, false);
    ab.base_run_args = ab_side_args(parsed, t.base_args, all, "--base-arg");
    ab.new_run_args = ab_side_args(parsed, t.new_args, all, "--new-arg");
    if (cmd.format != report::output_format::table && cmd.format != report::output_format::json)
        throw usage_error("ipchost ab --format: table or json");
}

void check_inputs(const command_line &cmd) {
    if (cmd.subcommand.empty() && !cmd.inputs.empty()) {
        std::vector<std::string> names;
        for (const auto &doc : subcommand_docs()) names.emplace_back(doc.name);
        const std::string hint = text::did_you_mean(cmd.inputs.front(), names);
        throw usage_error("unexpected argument '" + cmd.inputs.front() + "'" +
                          (hint.empty() ? "" : ": not a subcommand" + hint) +
                          "; see ipchost --help");
    }
    if (cmd.subcommand == "ab" && !cmd.inputs.empty())
        throw usage_error("ipchost ab takes no file ('" + cmd.inputs.front() +
                          "'): it runs both sides; compare takes two files");
    if (cmd.subcommand == "trend" && cmd.inputs.size() < 2)
        throw usage_error(
            "trend needs result files in time order: ipchost trend night1.json "
            "night2.json ... (at least 2, 6 or more to find a change)");
    if (cmd.subcommand == "compare" && cmd.inputs.size() != 2)
        throw usage_error("compare needs two result files: ipchost compare BASE.json NEW.json");
    if (cmd.subcommand == "new-plugin" && cmd.inputs.size() != 1)
        throw usage_error(
            "new-plugin needs one name: ipchost new-plugin NAME [--lang c|cpp] [--dir DIR]");
    if (cmd.subcommand == "system" && !cmd.inputs.empty())
        throw usage_error("ipchost system takes no argument ('" + cmd.inputs.front() +
                          "'): it reads this machine; --format json for JSON");
    if (cmd.subcommand == "report" && cmd.inputs.size() != 1)
        throw usage_error(
            "report needs one result file: ipchost report RESULTS.json --output report.html");
}

}  // namespace

bool command_line::uses_kits() const {
    for (const auto &[sender, receiver] : implementations)
        if (sender != "native" || receiver != "native") return true;
    return false;
}

model::case_settings settings_for_case(const command_line &cmd, const std::string &transport_id,
                                       model::measure_mode mode, std::uint64_t size) {
    model::case_settings c = cmd.case_defaults;
    c.transport_id = transport_id;
    c.mode = mode;
    c.size_bytes = size;
    if (mode == model::measure_mode::latency) {
        c.rate_per_s = 0;
        c.batch = 1;
        c.direction = model::traffic_direction::forward;
    } else if (cmd.bitrate_bits_per_s > 0) {
        c.rate_per_s = cmd.bitrate_bits_per_s / (8.0 * static_cast<double>(size));
    }
    return c;
}

std::vector<option_group> option_table(typed_options &t, command_line &cmd) {
    auto group = [](po::options_description d, std::string caption) {
        return option_group{std::move(caption),
                            std::make_shared<po::options_description>(std::move(d))};
    };
    return {group(general_options(t, cmd), "General"),
            group(case_options(t), "What each case measures"),
            group(output_options(t, cmd), "Repetitions and output"),
            group(remote_options(t), "Two hosts"),
            group(fleet_options_of(t), "A fleet"),
            group(ab_options_of(t), "Base against new (ab) and the gate"),
            group(new_plugin_options(t), "New plugin")};
}

command_line parse_command_line(int argc, const char *const argv[]) {
    command_line cmd;
    typed_options t;
    const auto groups = option_table(t, cmd);

    std::vector<std::string> args(argv + 1, argv + argc);
    for (const auto &sub : subcommand_docs())
        if (!args.empty() && args.front() == sub.name) {
            cmd.subcommand = sub.name;
            args.erase(args.begin());
            break;
        }
    po::options_description all;
    for (const auto &g : groups) all.add(*g.options);
    all.add_options()("input", po::value(&cmd.inputs));
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    po::parsed_options parsed(&all);
    try {
        parsed = po::command_line_parser(args).options(all).positional(positional).run();
        po::store(parsed, vm);
        po::notify(vm);
    } catch (const po::unknown_option &e) {
        std::vector<std::string> names;
        for (const auto &option : all.options()) names.push_back("--" + option->long_name());
        throw usage_error(std::string(e.what()) + text::did_you_mean(e.get_option_name(), names) +
                          "; see ipchost --help");
    } catch (const po::error &e) {
        throw usage_error(std::string(e.what()) + "; see ipchost --help");
    }
    cmd.help = vm.count("help") > 0;
    cmd.version = vm.count("version") > 0;
    cmd.list = vm.count("list") > 0;
    cmd.verbose = vm.count("verbose") > 0;
    for (const auto &list : t.plugin_lists)
        for (const auto &id : split_list(list)) cmd.plugins.push_back(id);
    for (const auto &d : t.dirs) cmd.plugin_dirs.emplace_back(d);
    for (const auto &d : t.kit_dirs) cmd.kit_dirs.emplace_back(d);
    if (!t.impls.empty()) cmd.implementations = parse_implementations(t.impls);
    apply_case_options(vm, t, cmd);
    apply_output_options(vm, t, cmd);
    apply_remote_options(vm, t, cmd);
    apply_fleet_options(t, cmd);
    apply_gate_options(vm, t, cmd);
    apply_ab_options(vm, t, parsed, all, cmd);
    check_option_scope(vm, cmd);
    if (cmd.subcommand == "new-plugin") {
        cmd.new_plugin.lang = t.lang;
        cmd.new_plugin.dir = t.dir;
        if (cmd.inputs.size() == 1) cmd.new_plugin.name = cmd.inputs.front();
    }
    if (cmd.help) {
        if (cmd.help_format == "man")
            cmd.help_text = render_man_page(groups);
        else if (cmd.help_format == "markdown")
            cmd.help_text = render_markdown(groups);
        else if (cmd.help_format == "words")
            cmd.help_text = render_words(groups);
        else
            cmd.help_text = render_help_text(groups);
        for (const auto &doc : subcommand_docs())  // `ipchost compare --help`: compare's own
            if (cmd.help_format == "text" && cmd.subcommand == doc.name)
                cmd.help_text = render_subcommand_help(doc, groups);
        return cmd;
    }
    check_inputs(cmd);
    return cmd;
}

bool wipe_token_arguments(int argc, char **argv) {
    bool wiped = false;
    auto zero = [](char *text) {
        for (volatile char *c = text; *c != '\0'; ++c) *c = '\0';
    };
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--token") == 0 && i + 1 < argc && argv[i + 1][0] != '\0') {
            zero(argv[++i]);
            wiped = true;
        } else if (std::strncmp(argv[i], "--token=", 8) == 0 && argv[i][8] != '\0') {
            zero(argv[i] + 8);
            wiped = true;
        }
    }
    return wiped;
}

}  // namespace ipcbench::cli
