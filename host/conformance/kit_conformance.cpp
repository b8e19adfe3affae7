#include "conformance/kit_conformance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "control/control_channel.hpp"
#include "control/frame_codec.hpp"
#include "control/worker_messages.hpp"
#include "harness/orchestrator.hpp"
#include "harness/side_launch.hpp"
#include "platform/child_process.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/stream_socket.hpp"
#include "platform/system_info.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;

// An unreliable case's verdict when no timed datagram arrived. A short burst (300 datagrams of
// 64 KiB leave in a few milliseconds) can all be dropped by a receiver that a loaded machine did
// not schedule meanwhile: such a case runs again, up to data_case_tries times, before it fails.
constexpr const char *nothing_arrived = "nothing arrived";
constexpr int data_case_tries = 4;

// One data case: the kit on the sending (pinging) side or the other, or on both.
struct data_case {
    const char *name;
    model::measure_mode mode;
    std::uint64_t size;
    std::uint64_t count;  // 0: --duration 0.3
    int streams;
    double rate;
    bool kit_sends;
    bool kit_both = false;  // the kit on both sides: two kits must agree with each other
    model::traffic_direction direction = model::traffic_direction::forward;
    int batch = 1;        // messages per call; a count that is no multiple ends mid-batch
    double interval = 0;  // --interval: its lines add up to the totals
    // The kit's side is judged on its CPU (within what the kernel counted for its process) or,
    // pinned by --affinity, on where its threads may run, seen from outside.
    // corrupted_one: the native sender corrupts one message (payload_pattern.hpp) and the kit's
    // --verify must find exactly that one.
    enum class side_check { none, cpu_bounds, affinity, corrupted_one } kit_side = side_check::none;
};

using model::measure_mode;
using model::traffic_direction;

const data_case data_cases[] = {
    {"send 100 B", model::measure_mode::throughput, 100, 20000, 1, 0, true},
    {"receive 100 B", model::measure_mode::throughput, 100, 20000, 1, 0, false},
    {"send 64 KiB", model::measure_mode::throughput, 65536, 300, 1, 0, true},
    {"receive 64 KiB", model::measure_mode::throughput, 65536, 300, 1, 0, false},
    {"ping", model::measure_mode::latency, 64, 2000, 1, 0, true},
    {"pong", model::measure_mode::latency, 64, 2000, 1, 0, false},
    {"3 streams send", model::measure_mode::throughput, 256, 3000, 3, 0, true},
    {"3 streams receive", model::measure_mode::throughput, 256, 3000, 3, 0, false},
    {"paced send", model::measure_mode::throughput, 64, 400, 1, 4000, true},
    {"paced receive", model::measure_mode::throughput, 64, 400, 1, 4000, false},
    {"duration send", model::measure_mode::throughput, 64, 0, 1, 0, true, false,
     traffic_direction::forward, 1, 0, data_case::side_check::cpu_bounds},
    {"duration receive", model::measure_mode::throughput, 64, 0, 1, 0, false, false,
     traffic_direction::forward, 1, 0, data_case::side_check::cpu_bounds},
    {"affinity send", measure_mode::throughput, 256, 0, 1, 0, true, false,
     traffic_direction::forward, 1, 0, data_case::side_check::affinity},
    {"affinity receive", measure_mode::throughput, 256, 0, 1, 0, false, false,
     traffic_direction::forward, 1, 0, data_case::side_check::affinity},
    {"verify finds a byte", measure_mode::throughput, 256, 2000, 1, 0, false, false,
     traffic_direction::forward, 1, 0, data_case::side_check::corrupted_one},
    {"kit to kit", measure_mode::throughput, 1000, 20000, 1, 0, true, true},
    {"kit to kit ping", measure_mode::latency, 64, 2000, 1, 0, true, true},
    {"reverse", measure_mode::throughput, 256, 5000, 1, 0, true, false, traffic_direction::reverse},
    {"bidir", measure_mode::throughput, 256, 5000, 1, 0, true, false, traffic_direction::bidir},
    {"count cut mid-batch", measure_mode::throughput, 100, 1003, 1, 0, true, false,
     traffic_direction::forward, 7},
    {"intervals receive", measure_mode::throughput, 256, 0, 1, 0, false, false,
     traffic_direction::forward, 1, 0.1},
    {"intervals send", measure_mode::throughput, 256, 0, 1, 0, true, false,
     traffic_direction::forward, 1, 0.1},
};

model::case_settings settings_of(const data_case &d, const plugin::transport_info &t,
                                 const std::string &kit) {
    model::case_settings c;
    c.transport_id = t.id;
    c.mode = d.mode;
    // An IPv4 datagram carries at most 65,507 bytes.
    c.size_bytes = t.max_message_size ? std::min(d.size, t.max_message_size) : d.size;
    c.count = d.count;
    c.duration_s = d.count ? 0.5 : 0.3;
    c.warmup_s = 0.05;
    c.streams = d.streams;
    c.rate_per_s = d.rate;
    c.verify = true;
    c.io = model::io_engine::threads;
    c.timeout_s = 60;
    c.direction = d.direction;
    c.batch = d.batch;
    c.interval_s = d.interval;
    if (d.interval > 0) c.duration_s = 0.5;
    (d.kit_sends ? c.sender_impl : c.receiver_impl) = kit;
    if (d.kit_both) c.sender_impl = c.receiver_impl = kit;
    if (d.kit_side == data_case::side_check::affinity) {  // the kit on the last CPU
        const int kit_cpu = std::max(0, platform::usable_cpu_count() - 1);
        c.affinity.sender_cpu = d.kit_sends ? kit_cpu : 0;
        c.affinity.receiver_cpu = d.kit_sends ? 0 : kit_cpu;
    }
    return c;
}

// The kit's CPU against what the kernel counted for its whole process between the run request
// and its result (a span longer than the kit's timed window): never more than its process used
// (the kernel counts in 10 ms ticks: two ticks and a tenth of slack), and not nothing when its
// process was busy. Seconds, not percentages: the two figures cover different spans.
std::string cpu_problem(const model::process_figures &kit) {
    const double own = kit.cpu_user_s + kit.cpu_sys_s, outside = kit.outside_cpu_s;
    if (outside <= 0 && kit.outside_cpu_percent <= 0) return "";  // not measured (an agent's side)
    if (own > outside * 1.1 + 0.02)
        return fmt::format(
            "it reported {:.3f} s of CPU for its loops, its whole process used "
            "{:.3f} s (the kernel's count): a kit reports its own threads' CPU time",
            own, outside);
    if (outside >= 0.1 && own <= 0)
        return fmt::format(
            "it reported no CPU while its process used {:.3f} s (the kernel's "
            "count): a kit reports its loops' CPU time (getrusage RUSAGE_THREAD "
            "or its runtime's equivalent)",
            outside);
    return "";
}

// --affinity: every thread of the kit's process may run on the CPU asked and no other (seen
// from outside: the kernel's affinity of each thread), and the CPUs it reports are that one.
std::string affinity_problem(const model::process_figures &kit, int cpu) {
    if (kit.outside_allowed_cpus.empty()) return "";  // the system does not say (an agent's side)
    const auto list = [](const std::vector<int> &v) {
        return fmt::format("{}", fmt::join(v, ","));
    };
    if (kit.outside_allowed_cpus != std::vector<int>{cpu})
        return fmt::format(
            "--affinity asked CPU {} for the kit; its threads may run on CPUs {} "
            "(the kernel's affinity of each): pin the process, every thread a "
            "runtime has included",
            cpu, list(kit.outside_allowed_cpus));
    for (int seen : kit.cpus)
        if (seen != cpu)
            return fmt::format("--affinity asked CPU {}; the kit reports its loops on CPUs {}", cpu,
                               list(kit.cpus));
    if (kit.cpus.empty()) return "--affinity: the kit reports no CPU its loops ran on (cpus)";
    return "";
}

// The message the native sender corrupts in a corrupted_one case (the 778th).
constexpr std::uint64_t corrupted_message = 777;

std::string kit_side_problem(const report::case_result &r, const data_case &d) {
    const auto &kit = d.kit_sends ? r.sender : r.receiver;
    switch (d.kit_side) {
        case data_case::side_check::corrupted_one:
            // Over UDP the one corrupted datagram may be lost: none is then fine.
            if (r.integrity.corrupted > 1 ||
                (r.integrity.corrupted == 0 &&
                 r.integrity.messages_received == r.integrity.messages_sent))
                return fmt::format(
                    "--verify: message {} came with its last byte flipped; the kit "
                    "counted {} corrupted messages, where one was",
                    corrupted_message, r.integrity.corrupted);
            return "";
        case data_case::side_check::cpu_bounds: return cpu_problem(kit);
        case data_case::side_check::affinity:
            return affinity_problem(kit, d.kit_sends ? r.settings.affinity.sender_cpu
                                                     : r.settings.affinity.receiver_cpu);
        case data_case::side_check::none: break;
    }
    return "";
}

// --interval: the lines add up to the run's messages and bytes, and traffic showed while it ran
// (a loop that published its count only at the end has every message in its last line).
std::string interval_problem(const report::case_result &r) {
    std::uint64_t messages = 0, bytes = 0, busy = 0;
    for (const auto &line : r.intervals) {
        messages += line.messages;
        bytes += line.bytes;
        busy += line.messages > 0;
    }
    if (r.intervals.size() < 3)
        return fmt::format("{} interval lines in a 0.5 s run at --interval 0.1",
                           r.intervals.size());
    const std::uint64_t total_bytes = r.integrity.messages_received * r.settings.size_bytes;
    if (messages != r.integrity.messages_received || bytes != total_bytes)
        return fmt::format(
            "the interval lines add up to {} messages and {} bytes, the run to {} and {}", messages,
            bytes, r.integrity.messages_received, total_bytes);
    if (busy < 2)
        return fmt::format(
            "messages in {} of {} interval lines: the count was not published while "
            "it ran",
            busy, r.intervals.size());
    return "";
}

// What is wrong with a throughput result, "" when nothing is. Reliable transports: every
// message there, once, intact; unreliable ones: nothing corrupted or duplicated, and no more
// received than sent.
std::string throughput_problem(const report::case_result &r, const data_case &d, bool reliable) {
    const auto &i = r.integrity;
    const std::uint64_t expected = d.count * static_cast<std::uint64_t>(d.streams);
    if (i.corrupted && d.kit_side != data_case::side_check::corrupted_one)
        return fmt::format("{} messages corrupted", i.corrupted);
    if (i.duplicated) return fmt::format("{} messages duplicated", i.duplicated);
    if (i.messages_received > i.messages_sent)
        return fmt::format("messages_received {} is more than messages_sent {}",
                           i.messages_received, i.messages_sent);
    if (d.count && i.messages_sent != expected)
        return fmt::format("messages_sent {} where {} were asked for", i.messages_sent, expected);
    if (!reliable) return i.messages_received > 0 ? "" : std::string(nothing_arrived);
    if (i.messages_received != i.messages_sent)
        return fmt::format("messages_received {} of messages_sent {}", i.messages_received,
                           i.messages_sent);
    if (i.out_of_order) return fmt::format("{} messages out of order", i.out_of_order);
    if (d.interval > 0) return interval_problem(r);
    if (d.rate > 0 && (!r.latency || r.latency->samples != i.messages_received))
        return fmt::format("a paced receiver's one-way delays: {} samples for {} messages",
                           r.latency ? r.latency->samples : 0, i.messages_received);
    return "";
}

std::string latency_problem(const report::case_result &r, const data_case &d, bool reliable) {
    if (!r.latency) return "no latency figures";
    for (const auto &w : r.warnings)  // rule 4 (harness::echo_problem)
        if (w.rfind("the ponger (", 0) == 0) return w;
    if (r.integrity.corrupted) return fmt::format("{} pongs corrupted", r.integrity.corrupted);
    const std::uint64_t samples = r.latency->samples, lost = r.integrity.lost;
    if (reliable ? samples != d.count : samples + lost != d.count)
        return fmt::format("{} round trips and {} lost where {} pings were asked for", samples,
                           lost, d.count);
    return "";
}

// The native sender of a corrupted_one case corrupts one message, told by its environment.
class corrupting_sender {
public:
    explicit corrupting_sender(bool on) : on_(on) {
        if (on_)
            platform::set_environment_variable("IPCBENCH_CHECK_CORRUPT_MESSAGE",
                                               std::to_string(corrupted_message));
    }
    ~corrupting_sender() {
        if (on_) platform::set_environment_variable("IPCBENCH_CHECK_CORRUPT_MESSAGE", "");
    }
    corrupting_sender(const corrupting_sender &) = delete;
    corrupting_sender &operator=(const corrupting_sender &) = delete;

private:
    bool on_;
};

check_result run_data_case_once(const kit::kit_registry &kits, const kit::kit_info &k,
                                const plugin::transport_info &t, const data_case &d) {
    check_result out{t.id, d.name, false, ""};
    const auto results = [&] {
        corrupting_sender corrupting(d.kit_side == data_case::side_check::corrupted_one);
        return harness::run_case(t, settings_of(d, t, k.manifest.name), nullptr, nullptr, &kits);
    }();
    const auto &r = results.front();
    if (r.status == report::case_status::skipped) {  // a kernel limit, said by either side
        out.passed = true;
        out.detail = "skipped: " + r.error;
        return out;
    }
    const bool reliable = t.has(IPCB_CAP_RELIABLE);
    std::string problem;
    for (const auto &each : results) {  // bidir: a result a direction
        if (!each.ok()) {
            out.detail = each.error;
            return out;
        }
        if (problem.empty())
            problem = d.mode == model::measure_mode::latency
                          ? latency_problem(each, d, reliable)
                          : throughput_problem(each, d, reliable);
        if (problem.empty()) problem = kit_side_problem(each, d);
    }
    if (problem.empty() && d.direction == traffic_direction::bidir && results.size() != 2)
        problem = fmt::format("{} results for a bidir case, not one a direction", results.size());
    out.passed = problem.empty();
    out.detail = problem.empty() ? fmt::format("{} -> {}, {} messages", r.sender.implementation,
                                               r.receiver.implementation,
                                               d.mode == model::measure_mode::latency
                                                   ? r.latency->samples
                                                   : r.integrity.messages_received)
                                 : problem;
    return out;
}

check_result run_data_case(const kit::kit_registry &kits, const kit::kit_info &k,
                           const plugin::transport_info &t, const data_case &d) {
    check_result out = run_data_case_once(kits, k, t, d);
    int tries = 1;
    while (!out.passed && out.detail == nothing_arrived && tries < data_case_tries) {
        out = run_data_case_once(kits, k, t, d);
        ++tries;
    }
    if (tries > 1)
        out.detail += fmt::format(" ({} {})", tries, out.passed ? "tries" : "tries, none got any");
    return out;
}

// The orchestrator's side of a session, by hand: the kit's worker and its control channel.
class session {
public:
    explicit session(const kit::kit_info &k)
        : child_(k.worker.front(), std::vector<std::string>(k.worker.begin() + 1, k.worker.end()),
                 "kit " + k.manifest.name, nullptr, -1, &k.environment.variables),
          channel_(child_.control_socket()) {}

    // The next message within timeout_s; nullopt when none came or the channel ended.
    std::optional<json> next(double timeout_s) {
        try {
            return channel_.receive(platform::now_ns() +
                                    static_cast<std::int64_t>(timeout_s * 1e9));
        } catch (const std::exception &) {
            return std::nullopt;
        }
    }
    void send(const json &m) { channel_.send(m); }
    void send_raw(const std::string &bytes) {
        platform::send_all(channel_.socket(), bytes.data(), bytes.size(), 5000);
    }
    void hang_up() { platform::shutdown_socket(channel_.socket()); }
    bool exits_within(int ms) { return child_.wait(ms); }
    const platform::exit_status &status() { return child_.status(); }

    // hello, then welcome with the version it offered: "" or what went wrong.
    std::string open(json *hello = nullptr) {
        const auto h = next(10);
        if (!h || !control::is(*h, control::message_kind::hello)) return "no hello within 10 s";
        if (hello) *hello = *h;
        send(control::write_message(control::worker_welcome{"1.0"}));
        return "";
    }

private:
    platform::child_process child_;
    control::control_channel channel_;
};

// The text of an error reply, or why there was none.
std::string error_text(const std::optional<json> &m) {
    if (!m) return "";
    if (!control::is(*m, control::message_kind::error)) return "";
    return m->value("message", std::string("(no message)"));
}

check_result protocol_check(const char *name, const std::function<std::string()> &body) {
    check_result out{"protocol", name, false, ""};
    try {
        out.detail = body();
        out.passed = out.detail.rfind("ok", 0) == 0;
    } catch (const std::exception &e) {
        out.detail = e.what();
    }
    return out;
}

// One send endpoint of a 64-byte case.
control::setup_request setup_of(const std::string &transport, control::endpoint_role role,
                                const std::string &address) {
    control::setup_request setup;
    setup.transport = transport;
    setup.role = role;
    setup.endpoints = {{control::endpoint_direction::send, address}};
    setup.max_message_size = 64;
    return setup;
}

// A message answered by an error that names `word`; what came instead otherwise. A message a
// worker cannot take is refused with stage = its type and status IPCB_E_INVALID, and the worker
// reads on (docs/worker-protocol.md, "Refusing a message").
std::string expect_error(session &s, const json &message, const std::string &word) {
    s.send(message);
    const auto reply = s.next(5);
    const std::string text = error_text(reply);
    if (text.empty())
        return "expected an error naming '" + word + "', got " +
               (reply ? reply->dump().substr(0, 200) : std::string("nothing in 5 s"));
    if (text.find(word) == std::string::npos)
        return "the error does not name '" + word + "': " + text;
    const std::string type = message.value("type", std::string());
    const std::string stage = reply->value("stage", std::string());
    const int status = reply->value("status", 0);
    if (stage != type || status != IPCB_E_INVALID)
        return fmt::format(
            "refused with stage '{}' and status {}, where the rule is stage '{}' "
            "(the message's type) and status {} (IPCB_E_INVALID): {}",
            stage, status, type, IPCB_E_INVALID, text);
    return "ok: " + text;
}

std::vector<check_result> protocol_checks(const kit::kit_info &k) {
    std::vector<check_result> out;
    out.push_back(protocol_check("hello", [&] {
        session s(k);
        json hello;
        if (auto e = s.open(&hello); !e.empty()) return e;
        if (hello.value("implementation", "") != k.manifest.name)
            return "its hello says implementation '" + hello.value("implementation", "") +
                   "', its manifest '" + k.manifest.name + "'";
        return "ok: " + hello.value("runtime", std::string("(no runtime)"));
    }));
    out.push_back(protocol_check("version refused", [&] {
        session s(k);
        if (!s.next(10)) return std::string("no hello within 10 s");
        const std::string first =
            expect_error(s, control::write_message(control::worker_welcome{"9.9"}), "9.9");
        if (first.rfind("ok", 0) != 0) return "a welcome with a version it did not offer: " + first;
        std::string before =
            expect_error(s, control::write_message(control::connect_request{1000}), "welcome");
        if (before.rfind("ok", 0) != 0) return "a message before the welcome: " + before;
        // It read on: the welcome it can take is taken, and a close is answered.
        s.send(control::write_message(control::worker_welcome{"1.0"}));
        s.send(control::write_message(control::empty_message{control::message_kind::close}));
        const auto closed = s.next(5);
        if (!closed || !control::is(*closed, control::message_kind::closed))
            return "after the refusals, a welcome and a close were not answered 'closed': " +
                   (closed ? closed->dump().substr(0, 200) : std::string("nothing in 5 s"));
        return before;
    }));
    out.push_back(protocol_check("unknown message", [&] {
        session s(k);
        if (auto e = s.open(); !e.empty()) return e;
        return expect_error(s, control::message_of_no_kind("bogus_kind"), "bogus_kind");
    }));
    out.push_back(protocol_check("malformed field", [&] {
        session s(k);
        if (auto e = s.open(); !e.empty()) return e;
        json setup = control::write_message(
            setup_of(k.manifest.transports.front(), control::endpoint_role::creator, ""));
        setup["endpoints"] = "not a list";
        return expect_error(s, setup, "endpoints");
    }));
    out.push_back(protocol_check("garbage frame", [&] {
        session s(k);
        if (auto e = s.open(); !e.empty()) return e;
        s.send_raw(std::string("\0\0\0\x05{{{{{", 9));
        const std::string text = error_text(s.next(5));
        if (text.empty()) return std::string("no error for a frame that is not JSON");
        if (!s.exits_within(3000)) return "it did not exit within 3 s after: " + text;
        return "ok: " + text + " (" + s.status().describe() + ")";
    }));
    out.push_back(protocol_check("deep frame", [&] {
        // 200,000 nested arrays in one frame: a recursive parser's stack, unless the depth is
        // checked first (ipchost's own frames are at most 32 deep).
        session s(k);
        if (auto e = s.open(); !e.empty()) return e;
        const std::string body = std::string(200000, '[') + std::string(200000, ']');
        std::string frame(4, '\0');
        for (int i = 0; i < 4; ++i)
            frame[i] = static_cast<char>((body.size() >> (24 - 8 * i)) & 0xff);
        s.send_raw(frame + body);
        const std::string text = error_text(s.next(5));
        if (text.empty()) return std::string("no error for a frame nested 200,000 deep");
        if (!s.exits_within(3000)) return "it did not exit within 3 s after: " + text;
        if (!s.status().exited || s.status().code != 2)
            return "it ended " + s.status().describe() + " after " + text +
                   " (a worker ends with exit code 2 after a frame it cannot read)";
        return "ok: " + text + " (" + s.status().describe() + ")";
    }));
    out.push_back(protocol_check("orchestrator gone", [&] {
        session s(k);
        if (auto e = s.open(); !e.empty()) return e;
        s.hang_up();
        return s.exits_within(3000) ? "ok: exited, " + s.status().describe()
                                    : std::string("still running 3 s after its channel closed");
    }));
    return out;
}

// A connector that cannot reach its creator must give up at the connect's deadline with a
// timeout, not hang: a closed TCP port, a Unix path nobody listens on, a UDP port that never
// answers the hello.
check_result connect_timeout_check(const kit::kit_info &k) {
    const char *const candidates[][2] = {{"socket.tcp", "127.0.0.1:9"},
                                         {"socket.unix", "/nonexistent/ipcbench-kit-check"},
                                         {"udp.inet", "127.0.0.1:9"}};
    for (const auto &[id, address] : candidates) {
        if (!k.offers(std::string(id))) continue;
        return protocol_check("connect timeout", [&, id = id, address = address] {
            session s(k);
            if (auto e = s.open(); !e.empty()) return e;
            s.send(
                control::write_message(setup_of(id, control::endpoint_role::connector, address)));
            const auto opened = s.next(5);
            if (!opened || !control::is(*opened, control::message_kind::opened))
                return "setup of a " + std::string(id) + " connector: " +
                       (opened ? opened->dump().substr(0, 200) : std::string("no answer"));
            const std::int64_t start = platform::now_ns();
            s.send(control::write_message(control::connect_request{300'000'000}));
            const auto reply = s.next(5);
            const double took = static_cast<double>(platform::now_ns() - start) / 1e9;
            if (!reply || !control::is(*reply, control::message_kind::error))
                return std::string("no error within 5 s for a connect that cannot succeed");
            if (reply->value("status", 0) != IPCB_E_TIMEOUT)
                return fmt::format("status {} where IPCB_E_TIMEOUT (-1) was due: {}",
                                   reply->value("status", 0), error_text(reply));
            return fmt::format("ok: {} after {:.2f} s: {}", id, took, error_text(reply));
        });
    }
    return {"protocol", "connect timeout", true, "skipped: the kit offers no socket transport"};
}

}  // namespace

// One transport option a kit must apply and report read back (docs/worker-protocol.md,
// "Transports" and rule 8), and one it must refuse by name, where the contract has one.
struct option_case {
    const char *transport;
    const char *key, *value;
    bool at_least;  // the kernel may round up (socket buffers are doubled): >= value
    const char *refused_key, *refused_value;
};

const option_case option_cases[] = {
    {"pipe.fifo", "pipe_size", "131072", false, "splice", "vmsplice"},
    {"socket.unix", "sndbuf", "262144", true, nullptr, nullptr},
    {"socket.tcp", "nodelay", "0", false, "zerocopy", "1"},
    {"udp.inet", "rcvbuf", "262144", true, nullptr, nullptr},
    {"mq.sysv", "queue_bytes", "8192", false, nullptr, nullptr},
    {"mq.posix", "maxmsg", "5", false, nullptr, nullptr},
};

const data_case option_case_shape{"option", measure_mode::throughput, 256, 2000, 1, 0, true, true};

// A check the kit's manifest rules out (a side it does not take): left out, and said.
check_result not_taken(const plugin::transport_info &t, const char *name, const std::string &why) {
    check_result out{t.id, name, false, "not run: " + why};
    out.skipped = true;
    return out;
}

// A short kit-to-kit case with one option: every setting reported comes from the kit.
std::vector<report::case_result> run_with_option(const kit::kit_registry &kits,
                                                 const kit::kit_info &k,
                                                 const plugin::transport_info &t,
                                                 const std::string &key, const std::string &value) {
    auto c = settings_of(option_case_shape, t, k.manifest.name);
    c.options[key] = value;
    return harness::run_case(t, c, nullptr, nullptr, &kits);
}

// What the kits reported for `key` (KEY, and KEY@SIDE where the two differed) against what was
// asked; "" when each side read back the value asked (or more, where the kernel rounds up).
std::string option_problem(const report::case_result &r, const option_case &o) {
    int reported = 0;
    for (const auto &[name, got] : r.options) {
        if (name != o.key && name.rfind(std::string(o.key) + "@", 0) != 0) continue;
        ++reported;
        const bool ok = o.at_least ? std::strtoull(got.c_str(), nullptr, 10) >=
                                         std::strtoull(o.value, nullptr, 10)
                                   : got == o.value;
        if (!ok)
            return fmt::format(
                "--opt {}={}: the kit reported {} = {}, where the setting read "
                "back from the system is {}{}",
                o.key, o.value, name, got, o.at_least ? "at least " : "", o.value);
    }
    if (!reported)
        return fmt::format(
            "--opt {}={}: the kit reported no '{}' setting (its transport's "
            "section lists it; rule 8)",
            o.key, o.value, o.key);
    return "";
}

std::vector<check_result> option_checks(const kit::kit_registry &kits, const kit::kit_info &k,
                                        const plugin::transport_info &t) {
    std::vector<check_result> out;
    for (const auto &o : option_cases) {
        if (t.id != o.transport) continue;
        // Kit to kit, so every setting read back is the kit's own.
        model::case_settings both = settings_of(option_case_shape, t, k.manifest.name);
        if (std::string why = harness::kit_skip_reason(t, both, &kits); !why.empty()) {
            out.push_back(not_taken(t, "option applied", why));
            continue;
        }
        check_result applied{t.id, "option applied", false, ""};
        const auto results = run_with_option(kits, k, t, o.key, o.value);
        const auto &r = results.front();
        if (!r.ok()) {
            applied.detail = fmt::format("--opt {}={}: {}", o.key, o.value, r.error);
        } else {
            applied.detail = option_problem(r, o);
            applied.passed = applied.detail.empty();
            if (applied.passed) applied.detail = fmt::format("{}={} read back", o.key, o.value);
        }
        out.push_back(applied);
        if (!o.refused_key) continue;
        check_result refused{t.id, "option refused", false, ""};
        const auto no = run_with_option(kits, k, t, o.refused_key, o.refused_value).front();
        if (no.ok())
            refused.detail = fmt::format(
                "--opt {}={} ran, where the kit's contract has no such "
                "setting: it must refuse it, naming '{}'",
                o.refused_key, o.refused_value, o.refused_key);
        else if (no.error.find(o.refused_key) == std::string::npos)
            refused.detail =
                "the refusal does not name '" + std::string(o.refused_key) + "': " + no.error;
        else
            refused.passed = true;
        if (refused.passed) refused.detail = no.error.substr(0, 160);
        out.push_back(refused);
    }
    return out;
}

std::vector<check_result> run_kit_conformance(
    const kit::kit_registry &kits, const kit::kit_info &k,
    const std::vector<const plugin::transport_info *> &transports,
    const std::function<void(const check_result &)> &report) {
    std::vector<check_result> all;
    auto add = [&](check_result r) {
        report(r);
        all.push_back(std::move(r));
    };
    for (auto &r : protocol_checks(k)) add(std::move(r));
    add(connect_timeout_check(k));
    for (const auto *t : transports) {
        if (!k.offers(t->id)) continue;
        for (const auto &d : data_cases) {
            std::string why =
                harness::kit_skip_reason(*t, settings_of(d, *t, k.manifest.name), &kits);
            add(why.empty() ? run_data_case(kits, k, *t, d) : not_taken(*t, d.name, why));
        }
        for (auto &r : option_checks(kits, k, *t)) add(std::move(r));
    }
    return all;
}

}  // namespace ipcbench::conformance
