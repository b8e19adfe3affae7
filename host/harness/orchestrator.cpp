#include "harness/orchestrator.hpp"

#include "control/message_kind.hpp"
#include "control/worker_messages.hpp"
#include "harness/case_figures.hpp"
#include "harness/io_engine_choice.hpp"
#include "harness/placement_sampler.hpp"
#include "harness/scale_figures.hpp"
#include "harness/side_launch.hpp"
#include "harness/worker_pair.hpp"
#include "model/job.hpp"
#include "model/json_fields.hpp"
#include "model/loop_result.hpp"
#include "model/plausibility.hpp"
#include "platform/open_file_limit.hpp"
#include "platform/process_usage.hpp"
#include "report/result_columns.hpp"

namespace ipcbench::harness {
namespace {

using model::job_kind;
using model::measure_mode;
using model::traffic_direction;
using nlohmann::json;

constexpr std::int64_t connect_timeout_ns = 5'000'000'000;

// The shape of a case: the endpoints the server creates for one stream (the client gets the
// mirror image), what each side is called in messages and what it does.
struct case_plan {
    std::vector<std::uint32_t> server_dirs;
    std::string server_side, client_side;
    job_kind server_kind = job_kind::receive, client_kind = job_kind::send;
    bool client_sends = true;  // the client sends (pings): --affinity's first CPU is its
    kit::side_role server_role = kit::side_role::receiver, client_role = kit::side_role::sender;
    bool reliable = true;  // the transport never drops: a ponger echoes every ping
};

case_plan plan_for(const plugin::transport_info &transport, const model::case_settings &c) {
    case_plan p;
    p.reliable = transport.has(IPCB_CAP_RELIABLE);
    if (c.mode == measure_mode::latency) {
        p.server_dirs = transport.has(IPCB_CAP_DUPLEX)
                            ? std::vector<std::uint32_t>{IPCB_DIR_BOTH}
                            : std::vector<std::uint32_t>{IPCB_DIR_RECV, IPCB_DIR_SEND};
        p.server_side = "ponger";
        p.client_side = "pinger";
        p.server_kind = job_kind::pong;
        p.client_kind = job_kind::ping;
        p.server_role = kit::side_role::ponger;
        p.client_role = kit::side_role::pinger;
    } else if (c.direction == traffic_direction::bidir) {
        p.server_dirs = {IPCB_DIR_RECV, IPCB_DIR_SEND};
        p.server_side = "server";
        p.client_side = "client";
        p.server_kind = p.client_kind = job_kind::bidir;
    } else if (c.direction == traffic_direction::reverse) {
        p.server_dirs = {IPCB_DIR_SEND};
        p.server_side = "sender";
        p.client_side = "receiver";
        p.server_kind = job_kind::send;
        p.client_kind = job_kind::receive;
        p.client_sends = false;
        p.server_role = kit::side_role::sender;
        p.client_role = kit::side_role::receiver;
    } else {
        p.server_dirs = {IPCB_DIR_RECV};
        p.server_side = "receiver";
        p.client_side = "sender";
    }
    std::vector<std::uint32_t> all;
    for (int k = 0; k < c.streams; ++k)
        all.insert(all.end(), p.server_dirs.begin(), p.server_dirs.end());
    p.server_dirs = std::move(all);
    return p;
}

// The effective options: the server's, and the client's where they differ, as KEY@SIDE.
void record_settings(report::case_result &r, const json &server, const json &client,
                     const std::string &client_side) {
    for (const auto &[k, v] : server.items()) r.options[k] = v;
    for (const auto &[k, v] : client.items()) {
        auto it = r.options.find(k);
        if (it == r.options.end() || it->second != v.get<std::string>())
            r.options[k + "@" + client_side] = v;
    }
}

model::worker_result worker_result_from(const json &answer, const std::string &side) {
    try {
        return answer.get<model::worker_result>();
    } catch (const std::exception &e) {
        throw pair_failure("the " + side + " process sent a malformed result: " + e.what());
    }
}

// The data path of one direction: the sender's calls -> the receiver's.
std::string data_path(const model::loop_result &sent, const model::loop_result &received) {
    return sent.path + " -> " + received.path;
}

void fill_results(std::vector<report::case_result> &results, const case_plan &plan,
                  const model::worker_result &server, const model::worker_result &client,
                  const placement_sampler &placement) {
    auto &first = results.front();
    switch (plan.client_kind) {
        case job_kind::ping:
            first.data_path = client.part(job_kind::ping).path;
            fill_latency(first, client.part(job_kind::ping), server.part(job_kind::pong),
                         placement);
            if (plan.reliable)
                if (auto problem =
                        echo_problem(client.part(job_kind::ping), server.part(job_kind::pong),
                                     first.settings.receiver_impl);
                    !problem.empty())
                    first.warnings.push_back(problem);
            return;
        case job_kind::bidir: {
            const auto &client_send = client.part(job_kind::send);
            const auto &server_receive = server.part(job_kind::receive);
            const auto &server_send = server.part(job_kind::send);
            const auto &client_receive = client.part(job_kind::receive);
            results[0].data_path = data_path(client_send, server_receive);
            results[1].data_path = data_path(server_send, client_receive);
            fill_throughput(results[0], client_send, server_receive, placement);
            fill_throughput(results[1], server_send, client_receive, placement);
            return;
        }
        default: {
            const auto &sent = (plan.client_sends ? client : server).part(job_kind::send);
            const auto &received = (plan.client_sends ? server : client).part(job_kind::receive);
            first.data_path = data_path(sent, received);
            fill_throughput(first, sent, received, placement);
        }
    }
}

// Who runs each side: the server's implementation is the receiver's (the ponger's) unless the
// server sends (--reverse); a bidir side both sends and receives, so its kit must offer both.
std::pair<worker_launch, worker_launch> launches_for(const plugin::transport_info &transport,
                                                     const model::case_settings &c,
                                                     const case_plan &plan, bool remote,
                                                     const kit::kit_registry *kits) {
    const std::string &server_impl = plan.client_sends ? c.receiver_impl : c.sender_impl;
    const std::string &client_impl = plan.client_sends ? c.sender_impl : c.receiver_impl;
    if (remote && server_impl != "native")
        throw pair_failure("--impl " + std::string(kit::to_string(plan.server_role)) + "=" +
                           server_impl + ": the " + plan.server_side +
                           " runs on the agent (--peer), which runs only its own native worker; "
                           "a kit can take the side on this host");
    if (plan.client_kind == job_kind::bidir) {
        launch_for(server_impl, kit::side_role::sender, transport, kits);
        launch_for(client_impl, kit::side_role::receiver, transport, kits);
    }
    std::pair<worker_launch, worker_launch> out{
        remote ? worker_launch::native()
               : launch_for(server_impl, plan.server_role, transport, kits),
        launch_for(client_impl, plan.client_role, transport, kits)};
    // A kit starts on its --affinity CPU, as `taskset -c CPU program` would start the user's
    // own program: its runtime sizes itself for one CPU (GOMAXPROCS 1, a JVM's one processor).
    // A native worker pins its own threads (nothing in it sizes itself by the CPUs).
    const int client_cpu = plan.client_sends ? c.affinity.sender_cpu : c.affinity.receiver_cpu;
    const int server_cpu = plan.client_sends ? c.affinity.receiver_cpu : c.affinity.sender_cpu;
    if (out.first.implementation != "native") out.first.start_cpu = server_cpu;
    if (out.second.implementation != "native") out.second.start_cpu = client_cpu;
    return out;
}

// What one side's process was, said and did: its hello, the kernel's view of it between run
// and result, and the figures a kit adds about its runtime.
struct side_view {
    const worker_identity *identity = nullptr;
    std::optional<platform::process_usage> before, after;
    std::map<std::string, double> kit;
    int agent_sessions = 0;
};

// A result's `kit` object: at most 32 numbers by name (untrusted: a worker wrote it).
std::map<std::string, double> kit_figures_of(const json &answer) {
    std::map<std::string, double> out;
    const auto it = answer.find("kit");
    if (it == answer.end() || !it->is_object()) return out;
    for (const auto &[name, value] : it->items()) {
        if (out.size() >= 32) break;
        if (value.is_number() && name.size() <= 64) out[name] = value.get<double>();
    }
    return out;
}

void record_side(model::process_figures &figures, const side_view &view,
                 std::vector<std::string> &warnings, const std::string &side) {
    figures.implementation = view.identity->implementation;
    figures.runtime = view.identity->runtime;
    figures.environment_dropped = view.identity->environment_dropped;
    figures.kit = view.kit;
    figures.agent_sessions = view.agent_sessions;
    if (!view.before || !view.after || view.after->at_ns <= view.before->at_ns) return;
    const double wall_s = static_cast<double>(view.after->at_ns - view.before->at_ns) / 1e9;
    figures.outside_cpu_s = view.after->cpu_s - view.before->cpu_s;
    figures.outside_cpu_percent = figures.outside_cpu_s / wall_s * 100;
    figures.outside_max_rss_kib = view.after->peak_rss_kib;
    figures.outside_allowed_cpus = view.after->allowed_cpus;
    // /proc counts CPU in 10 ms ticks: a gap is news only past 10 points of a core and 10 %.
    const double own = figures.cpu_percent, outside = figures.outside_cpu_percent;
    const double gap = outside > own ? outside - own : own - outside;
    if (gap > 10 && gap > 0.1 * std::max(own, outside))
        warnings.push_back(fmt::format(
            "{} ({}): {:.0f}% CPU measured from outside against {:.0f}% it reported for its "
            "loops ({})",
            side, figures.implementation, outside, own,
            figures.implementation == "native"
                ? "its other threads: the control channel, a stream's setup"
                : "other threads of its process, a runtime's scheduler or GC, or a misreporting "
                  "kit"));
}

// Each result names who ran its sending and its receiving side, as their hellos said, with
// what the kernel saw of each process.
void record_sides(std::vector<report::case_result> &results, const side_view &server,
                  const side_view &client) {
    for (auto &r : results) {
        const bool client_sends = client_sent(r);
        const side_view &sender = client_sends ? client : server;
        const side_view &receiver = client_sends ? server : client;
        const bool latency = r.is(model::measure_mode::latency);
        record_side(r.sender, sender, r.warnings, latency ? "pinger" : "sender");
        record_side(r.receiver, receiver, r.warnings, latency ? "ponger" : "receiver");
    }
}

std::optional<platform::process_usage> usage_of(long pid) {
    return pid > 0 ? platform::read_process_usage(pid) : std::nullopt;
}

void measure(const plugin::transport_info &transport, const model::case_settings &c,
             const remote::agent_address *agent, std::vector<report::case_result> &results,
             const interval_sink &on_interval, worker_outputs &outputs,
             const kit::kit_registry *kits) {
    const case_plan plan = plan_for(transport, c);
    auto [server_launch, client_launch] = launches_for(transport, c, plan, agent != nullptr, kits);
    worker_pair pair(transport, plan.server_dirs, plan.server_side, plan.client_side, agent,
                     &outputs, std::move(server_launch), std::move(client_launch));
    auto [server_settings, client_settings] =
        pair.connect(c.options, c.size_bytes, connect_timeout_ns);
    record_settings(results.front(), server_settings, client_settings, plan.client_side);

    model::job server_job{plan.server_kind, c, transport.has(IPCB_CAP_RELIABLE),
                          transport.has(IPCB_CAP_STREAM), -1};
    model::job client_job = server_job;
    client_job.kind = plan.client_kind;
    client_job.cpu = plan.client_sends ? c.affinity.sender_cpu : c.affinity.receiver_cpu;
    server_job.cpu = plan.client_sends ? c.affinity.receiver_cpu : c.affinity.sender_cpu;

    // Sender first: placement figures speak of the sending (pinging) side and the other.
    placement_sampler placement(plan.client_sends ? pair.client_pid() : pair.server_pid(),
                                plan.client_sends ? pair.server_pid() : pair.client_pid());
    const bool bidir = plan.client_kind == job_kind::bidir;
    side_view server_view{&pair.server_identity(), usage_of(pair.server_pid()), {}, {}, 0};
    side_view client_view{&pair.client_identity(), usage_of(pair.client_pid()), {}, {}, 0};
    auto [server_answer, client_answer] = pair.run(
        server_job, client_job, model::watchdog_seconds(c),
        [&](bool from_client, const json &event) {
            if (control::is(event, control::message_kind::sent)) {
                // An unreliable receiver needs the sender's count to know when to stop.
                auto counts = control::read_sender_counts(event);
                counts.kind = control::message_kind::sender_done;
                pair.notify(!from_client, control::write_message(counts));
                return;
            }
            // Intervals come from the receiving side (the pinger for latency); with bidir the
            // server receives the forward traffic and the client the reverse.
            auto &target = bidir && from_client ? results[1] : results[0];
            try {
                target.intervals.push_back(event.get<report::interval_figures>());
            } catch (const model::bad_field &e) {
                throw pair_failure(std::string("a worker sent a malformed interval: ") + e.what());
            }
            if (on_interval) on_interval(target.direction, target.intervals.back());
        },
        [&] { placement.sample(); });
    server_view.after = usage_of(pair.server_pid());
    client_view.after = usage_of(pair.client_pid());
    server_view.kit = kit_figures_of(server_answer);
    client_view.kit = kit_figures_of(client_answer);
    if (agent != nullptr) server_view.agent_sessions = agent_sessions_of(server_answer);
    fill_results(results, plan, worker_result_from(server_answer, plan.server_side),
                 worker_result_from(client_answer, plan.client_side), placement);
    record_sides(results, server_view, client_view);
    try {
        for (auto &r : results) {
            const bool client_sends = client_sent(r);
            fill_scale(r, client_sends ? pair.client_setup() : pair.server_setup(),
                       client_sends ? pair.server_setup() : pair.client_setup(),
                       pair.client_setup());
        }
    } catch (const std::exception &e) {
        throw pair_failure(std::string("a worker sent malformed set-up figures: ") + e.what());
    }
    pair.close();
}

}  // namespace

// The results a case will fill: its identity and the transport's default options.
std::vector<report::case_result> blank_results(const plugin::transport_info &transport,
                                               const model::case_settings &c) {
    report::case_result base;
    base.plugin = transport.plugin_name;
    base.settings = c;  // latency cases come unpaced, batch 1, forward (settings_for_case)
    for (const auto &o : transport.options) base.options[o.key] = o.default_value;
    for (const auto &[k, v] : c.options) base.options[k] = v;
    base.direction = base.settings.direction == traffic_direction::reverse
                         ? traffic_direction::reverse
                         : traffic_direction::forward;
    if (!base.bidir()) return {base};
    std::vector<report::case_result> results = {base, base};
    results[1].direction = traffic_direction::reverse;
    return results;
}

int agent_sessions_of(const json &answer) {
    const auto it = answer.find("agent_sessions");
    if (it == answer.end() || !it->is_number_integer()) return 0;
    const auto n = it->get<std::int64_t>();
    return n >= 1 && n <= 1024 ? static_cast<int>(n) : 0;
}

bool client_sent(const report::case_result &r) {
    if (r.is(model::measure_mode::latency)) return true;  // the client pings
    if (r.settings.direction == traffic_direction::bidir)
        return r.direction == traffic_direction::forward;
    return r.settings.direction != traffic_direction::reverse;
}

std::string reason_to_skip(const plugin::transport_info &t, const model::case_settings &c,
                           bool across_hosts) {
    if (t.max_message_size && c.size_bytes > t.max_message_size)
        return fmt::format(
            "{} exceeds the transport's maximum of {} bytes (ipchost --describe {} says where it "
            "comes from)",
            report::format_size(c.size_bytes), t.max_message_size, t.id);
    if (across_hosts && !t.has(IPCB_CAP_CROSS_HOST))
        return t.id +
               " cannot cross hosts (no cross-host capability); --peer runs only "
               "transports that can";
    return "";
}

std::vector<report::case_result> run_case(const plugin::transport_info &transport,
                                          const model::case_settings &settings,
                                          const remote::agent_address *agent,
                                          const interval_sink &on_interval,
                                          const kit::kit_registry *kits) {
    std::vector<report::case_result> results = blank_results(transport, settings);
    report::case_status status = report::case_status::ok;
    std::string error;
    worker_outputs outputs;  // outlives the pair inside measure(), whatever happens there
    try {
        if (settings.zero_copy == model::zero_copy_policy::on && !transport.calls.zero_copy_send)
            throw std::runtime_error(transport.id +
                                     " has no zero-copy send (borrow/publish, ABI 1.1); use "
                                     "--zero-copy auto or off");
        // The engine as it runs goes into the results, --io auto or not.
        const model::case_settings resolved = with_io_engine(transport, settings);
        for (auto &r : results) {
            r.settings.io = resolved.io;
            r.settings.threads = resolved.threads;
        }
        const std::string limit =
            platform::ensure_open_files(descriptors_needed(transport, resolved));
        if (!limit.empty())
            throw std::runtime_error("--streams " + std::to_string(resolved.streams) + " " + limit);
        measure(transport, resolved, agent, results, on_interval, outputs, kits);
    } catch (const pair_interrupted &e) {
        status = report::case_status::interrupted;
        error = e.what();
    } catch (const pair_failure &e) {
        // A kernel or transport limit the message size exceeds is a skip with the plugin's
        // explanation (which limit, how to raise it), not a failure of the run.
        status = e.status == IPCB_E_TOO_BIG && e.stage == "setup" ? report::case_status::skipped
                                                                  : report::case_status::failed;
        error = e.what();
    } catch (const std::exception &e) {
        status = report::case_status::failed;
        error = e.what();
    }
    for (const auto &[side, printed] : outputs)
        if (printed.bytes > 0)
            for (auto &r : results) r.worker_output[side] = {printed.bytes, printed.text};
    if (status != report::case_status::ok)
        for (auto &r : results) {
            r.status = status;
            r.error = error;
        }
    else if (results.size() > 1)
        results[1].options = results[0].options;
    model::mark_implausible(
        results, agent ? "the case's workers (one on the agent at " + agent->address.text() + ")"
                       : std::string("the case's workers"));
    return results;
}

}  // namespace ipcbench::harness
