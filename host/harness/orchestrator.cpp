#include "harness/orchestrator.hpp"

#include "harness/job.hpp"
#include "harness/worker_pair.hpp"

namespace ipcbench::harness {
namespace {

using nlohmann::json;

constexpr std::int64_t connect_timeout_ns = 5'000'000'000;

report::process_figures figures_from(const json &usage) {
    report::process_figures f;
    f.cpu_user_s = usage.at("cpu_user_s");
    f.cpu_sys_s = usage.at("cpu_sys_s");
    f.cpu_percent = usage.at("cpu_percent");
    f.max_rss_kib = usage.at("max_rss_kib");
    f.voluntary_ctx_switches = usage.at("voluntary_ctx_switches");
    f.involuntary_ctx_switches = usage.at("involuntary_ctx_switches");
    return f;
}

void fill_throughput(report::case_result &r, const json &sent, const json &received) {
    const std::uint64_t n_sent = sent.at("messages_sent");
    const std::uint64_t n_received = received.at("messages_received");
    const std::uint64_t duplicates = received.at("duplicates");
    const std::uint64_t counted = received.at("counted_messages");
    const double window_s = received.at("window_ns").get<double>() / 1e9;
    r.duration_s = window_s;
    r.throughput = report::throughput_figures{};
    if (window_s > 0) {
        r.throughput->messages_per_sec = static_cast<double>(counted) / window_s;
        r.throughput->bytes_per_sec = r.throughput->messages_per_sec * r.message_size;
    }
    const std::uint64_t unique = n_received - duplicates;
    r.integrity.messages_sent = n_sent;
    r.integrity.messages_received = n_received;
    r.integrity.lost = n_sent > unique ? n_sent - unique : 0;
    r.integrity.out_of_order = received.at("out_of_order");
    r.integrity.duplicated = duplicates;
    r.sender = figures_from(sent.at("usage"));
    r.receiver = figures_from(received.at("usage"));
}

void fill_latency(report::case_result &r, const json &pinger, const json &ponger) {
    r.histogram = stats::latency_histogram::from_json(pinger.at("histogram"));
    report::latency_figures l;
    l.p50 = r.histogram.percentile(50);
    l.p90 = r.histogram.percentile(90);
    l.p99 = r.histogram.percentile(99);
    l.p999 = r.histogram.percentile(99.9);
    l.max = r.histogram.max();
    l.mean = r.histogram.mean();
    l.samples = r.histogram.count();
    r.latency = l;
    r.duration_s = pinger.at("elapsed_ns").get<double>() / 1e9;
    r.integrity.messages_sent = pinger.at("pings_sent");
    r.integrity.messages_received = pinger.at("round_trips");
    r.integrity.lost = pinger.at("lost");
    r.integrity.out_of_order = pinger.at("mismatched");
    r.sender = figures_from(pinger.at("usage"));
    r.receiver = figures_from(ponger.at("usage"));
}

void measure(const plugin::transport_info &transport, const case_spec &spec,
             report::case_result &result) {
    const bool latency = spec.mode == "latency";
    std::vector<std::uint32_t> server_dirs;
    if (!latency)
        server_dirs = {IPCB_DIR_RECV};
    else if (transport.has(IPCB_CAP_DUPLEX))
        server_dirs = {IPCB_DIR_BOTH};
    else
        server_dirs = {IPCB_DIR_RECV, IPCB_DIR_SEND};  // pings in, pongs out

    worker_pair pair(transport, server_dirs, latency ? "ponger" : "receiver",
                     latency ? "pinger" : "sender");
    auto [server_settings, client_settings] =
        pair.connect(spec.options, spec.size, connect_timeout_ns);
    for (const auto &[k, v] : server_settings.items()) result.options[k] = v;
    for (const auto &[k, v] : client_settings.items()) {
        auto it = result.options.find(k);
        if (it == result.options.end() || it->second != v.get<std::string>())
            result.options[k + "@" + (latency ? "pinger" : "sender")] = v;
    }

    job j;
    j.size = spec.size;
    j.duration_ns = static_cast<std::int64_t>(spec.duration_s * 1e9);
    j.warmup_ns = static_cast<std::int64_t>(spec.warmup_s * 1e9);
    j.count = spec.count;
    j.reliable = transport.has(IPCB_CAP_RELIABLE);
    j.stream = transport.has(IPCB_CAP_STREAM);
    job server_job = j, client_job = j;
    server_job.kind = latency ? "pong" : "receive";
    client_job.kind = latency ? "ping" : "send";
    const double watchdog_s = spec.timeout_s > 0 ? spec.timeout_s
                              : spec.count > 0   ? 300.0
                                                 : spec.warmup_s + spec.duration_s + 20.0;
    auto [server_result, client_result] =
        pair.run(to_json(server_job), to_json(client_job), watchdog_s, [&](const json &reply) {
            // An unreliable receiver polls for this to know when to stop.
            if (!latency)
                pair.notify_server(
                    {{"type", "sender_done"}, {"sent", reply.value("messages_sent", 0)}});
        });
    for (const json *r : {&client_result, &server_result})
        if (r->contains("error"))
            throw pair_failure((*r)["error"].get<std::string>() + " [" +
                               (r == &client_result ? (latency ? "pinger" : "sender")
                                                    : (latency ? "ponger" : "receiver")) +
                               "]");
    if (latency)
        fill_latency(result, client_result, server_result);
    else
        fill_throughput(result, client_result, server_result);
    pair.close();
}

}  // namespace

report::case_result run_case(const plugin::transport_info &transport, const case_spec &spec) {
    report::case_result result;
    result.plugin = transport.plugin_name;
    result.transport = transport.id;
    result.mode = spec.mode;
    result.message_size = spec.size;
    for (const auto &o : transport.options) result.options[o.key] = o.default_value;
    for (const auto &[k, v] : spec.options) result.options[k] = v;
    try {
        measure(transport, spec, result);
    } catch (const pair_interrupted &e) {
        result.status = "interrupted";
        result.error = e.what();
    } catch (const pair_failure &e) {
        // A kernel or transport limit the message size exceeds is a skip with the plugin's
        // explanation (which limit, how to raise it), not a failure of the run.
        result.status = e.status == IPCB_E_TOO_BIG && e.stage == "setup" ? "skipped" : "failed";
        result.error = e.what();
    } catch (const std::exception &e) {
        result.status = "failed";
        result.error = e.what();
    }
    return result;
}

}  // namespace ipcbench::harness
