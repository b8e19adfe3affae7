#include "harness/orchestrator.hpp"

#include "harness/job.hpp"
#include "harness/usage_json.hpp"
#include "harness/worker_pair.hpp"

namespace ipcbench::harness {
namespace {

using nlohmann::json;

constexpr std::int64_t connect_timeout_ns = 5'000'000'000;

double window_s(const json &r) {
    const auto first = r.value("first_ns", std::int64_t{0});
    const auto end = r.value("end_ns", std::int64_t{0});
    return end > first && first > 0 ? static_cast<double>(end - first) / 1e9 : 0;
}

// A process's CPU over its timed window, and per unit of work.
report::process_figures figures_from(const json &side, std::uint64_t messages, double bytes) {
    const auto u = usage_from_json(side.at("usage"));
    report::process_figures f;
    f.cpu_user_s = u.cpu_user_s;
    f.cpu_sys_s = u.cpu_sys_s;
    const double cpu = u.cpu_user_s + u.cpu_sys_s, window = window_s(side);
    f.cpu_percent = window > 0 ? cpu / window * 100 : 0;
    f.cpu_us_per_mb = bytes > 0 ? cpu * 1e6 / (bytes / 1e6) : 0;
    f.cpu_us_per_message = messages ? cpu * 1e6 / static_cast<double>(messages) : 0;
    f.max_rss_kib = u.max_rss_kib;
    f.voluntary_ctx_switches = u.voluntary_ctx_switches;
    f.involuntary_ctx_switches = u.involuntary_ctx_switches;
    for (int cpu = 0; cpu < 64; ++cpu)
        if (u.cpus_seen & (std::uint64_t{1} << cpu)) f.cpus.push_back(cpu);
    return f;
}

report::latency_figures latency_from(const stats::latency_histogram &h, const char *kind) {
    report::latency_figures l;
    l.kind = kind;
    l.p50 = h.percentile(50);
    l.p90 = h.percentile(90);
    l.p99 = h.percentile(99);
    l.p999 = h.percentile(99.9);
    l.p9999 = h.percentile(99.99);
    l.min = h.min();
    l.max = h.max();
    l.mean = h.mean();
    l.samples = h.count();
    return l;
}

void fill_throughput(report::case_result &r, const json &sent, const json &received) {
    const std::uint64_t n_sent = sent.at("messages_sent");
    const std::uint64_t n_received = received.at("messages_received");
    const std::uint64_t duplicates = received.at("duplicates");
    const std::uint64_t counted = received.at("counted_messages");
    const double window = window_s(received);
    r.duration_s = window;
    r.throughput = report::throughput_figures{};
    if (window > 0) {
        r.throughput->messages_per_sec = static_cast<double>(counted) / window;
        r.throughput->bytes_per_sec = r.throughput->messages_per_sec * r.message_size;
    }
    const std::uint64_t unique = n_received - duplicates;
    r.integrity.messages_sent = n_sent;
    r.integrity.messages_received = n_received;
    r.integrity.lost = n_sent > unique ? n_sent - unique : 0;
    r.integrity.out_of_order = received.at("out_of_order");
    r.integrity.duplicated = duplicates;
    r.integrity.beyond_window = received.value("beyond_window", std::uint64_t{0});
    r.integrity.corrupted = received.value("corrupted", 0);
    const double bytes = static_cast<double>(n_received) * r.message_size;
    r.sender = figures_from(sent, n_sent, static_cast<double>(n_sent) * r.message_size);
    r.receiver = figures_from(received, n_received, bytes);
    const auto &sent_streams = sent.at("streams");
    const auto &received_streams = received.at("streams");
    for (std::size_t k = 0; k < received_streams.size(); ++k) {
        const json &s = received_streams[k];
        report::stream_figures f;
        f.messages = s.value("messages_received", 0);
        const double w = window_s(s);
        if (w > 0) f.messages_per_sec = s.value("counted_messages", 0) / w;
        f.bytes_per_sec = f.messages_per_sec * r.message_size;
        const std::uint64_t s_sent =
            k < sent_streams.size() ? sent_streams[k].value("messages_sent", 0) : 0;
        const std::uint64_t s_unique = f.messages - s.value("duplicates", 0);
        f.lost = s_sent > s_unique ? s_sent - s_unique : 0;
        r.per_stream.push_back(f);
    }
    if (received.contains("one_way_histogram")) {
        r.histogram = stats::latency_histogram::from_json(received["one_way_histogram"]);
        r.latency = latency_from(r.histogram, "one_way_from_schedule");
    }
}

void fill_latency(report::case_result &r, const json &pinger, const json &ponger) {
    r.histogram = stats::latency_histogram::from_json(pinger.at("histogram"));
    r.latency = latency_from(r.histogram, "round_trip");
    r.duration_s = window_s(pinger);
    r.integrity.messages_sent = pinger.at("pings_sent");
    r.integrity.messages_received = pinger.at("round_trips");
    r.integrity.lost = pinger.at("lost");
    r.integrity.out_of_order = pinger.at("mismatched");
    r.integrity.corrupted = pinger.value("corrupted", 0);
    const std::uint64_t trips = r.integrity.messages_received;
    const double bytes = 2.0 * static_cast<double>(trips) * r.message_size;
    r.sender = figures_from(pinger, trips, bytes);
    r.receiver = figures_from(ponger, trips, bytes);
    for (const json &s : pinger.at("streams")) {
        report::stream_figures f;
        f.messages = s.value("round_trips", 0);
        const double w = window_s(s);
        if (w > 0) f.messages_per_sec = static_cast<double>(f.messages) / w;
        // Both directions, as for CPU per MB: each round trip moves the message there and back.
        f.bytes_per_sec = f.messages_per_sec * 2.0 * static_cast<double>(r.message_size);
        f.lost = s.value("lost", 0);
        r.per_stream.push_back(f);
    }
}

std::vector<std::uint32_t> repeat(const std::vector<std::uint32_t> &dirs, int times) {
    std::vector<std::uint32_t> out;
    for (int k = 0; k < times; ++k) out.insert(out.end(), dirs.begin(), dirs.end());
    return out;
}

report::interval_figures interval_from(const json &e) {
    return {e.value("end_s", 0.0), e.value("seconds", 0.0), e.value("messages", std::uint64_t{0}),
            e.value("bytes", std::uint64_t{0}), e.value("lost", std::uint64_t{0})};
}

void measure(const plugin::transport_info &transport, const case_spec &spec,
             std::vector<report::case_result> &results, const interval_sink &on_interval,
             worker_outputs &outputs) {
    const bool latency = spec.mode == "latency";
    const bool bidir = !latency && spec.direction == "bidir";
    const bool reverse = !latency && spec.direction == "reverse";
    // One stream's endpoints on the server (the creator); the client gets the mirror image.
    std::vector<std::uint32_t> per_stream;
    if (latency)
        per_stream = transport.has(IPCB_CAP_DUPLEX)
                         ? std::vector<std::uint32_t>{IPCB_DIR_BOTH}
                         : std::vector<std::uint32_t>{IPCB_DIR_RECV, IPCB_DIR_SEND};
    else if (bidir)
        per_stream = {IPCB_DIR_RECV, IPCB_DIR_SEND};
    else
        per_stream = {reverse ? IPCB_DIR_SEND : IPCB_DIR_RECV};

    const std::string server_side = latency   ? "ponger"
                                    : bidir   ? "server"
                                    : reverse ? "sender"
                                              : "receiver";
    const std::string client_side = latency   ? "pinger"
                                    : bidir   ? "client"
                                    : reverse ? "receiver"
                                              : "sender";
    worker_pair pair(transport, repeat(per_stream, spec.streams), server_side, client_side,
                     spec.peer, &outputs);
    auto [server_settings, client_settings] =
        pair.connect(spec.options, spec.size, connect_timeout_ns);
    auto &first = results.front();
    for (const auto &[k, v] : server_settings.items()) first.options[k] = v;
    for (const auto &[k, v] : client_settings.items()) {
        auto it = first.options.find(k);
        if (it == first.options.end() || it->second != v.get<std::string>())
            first.options[k + "@" + client_side] = v;
    }

    job j;
    j.size = spec.size;
    j.duration_ns = static_cast<std::int64_t>(spec.duration_s * 1e9);
    j.warmup_ns = static_cast<std::int64_t>(spec.warmup_s * 1e9);
    j.count = spec.count;
    j.reliable = transport.has(IPCB_CAP_RELIABLE);
    j.stream = transport.has(IPCB_CAP_STREAM);
    j.streams = spec.streams;
    j.rate = spec.rate;
    j.verify = spec.verify;
    j.batch = spec.batch;
    j.zero_copy = spec.zero_copy;
    j.interval_ns = static_cast<std::int64_t>(spec.interval_s * 1e9);
    job server_job = j, client_job = j;
    if (latency) {
        server_job.kind = "pong";
        client_job.kind = "ping";
    } else if (bidir) {
        server_job.kind = client_job.kind = "bidir";
    } else {
        server_job.kind = reverse ? "send" : "receive";
        client_job.kind = reverse ? "receive" : "send";
    }
    // --affinity: the sending (pinging) process on one CPU, the other on another.
    const bool client_sends = latency || bidir || !reverse;
    client_job.cpu = client_sends ? spec.sender_cpu : spec.receiver_cpu;
    server_job.cpu = client_sends ? spec.receiver_cpu : spec.sender_cpu;

    // The watchdog follows the schedule: a paced count takes count / rate seconds.
    const double watchdog_s = spec.timeout_s > 0 ? spec.timeout_s
                              : spec.count > 0 && spec.rate > 0
                                  ? spec.warmup_s + spec.count / spec.rate + 20.0
                              : spec.count > 0 ? 300.0
                                               : spec.warmup_s + spec.duration_s + 20.0;
    auto [server_result, client_result] = pair.run(
        to_json(server_job), to_json(client_job), watchdog_s,
        [&](bool from_client, const json &event) {
            if (event["type"] == "sent") {
                // An unreliable receiver needs the sender's count to know when to stop.
                pair.notify(!from_client, {{"type", "sender_done"}, {"streams", event["streams"]}});
                return;
            }
            // Intervals come from the receiving side (the pinger for latency); with bidir the
            // server receives the forward traffic and the client the reverse.
            auto &target = bidir && from_client ? results[1] : results[0];
            target.intervals.push_back(interval_from(event));
            if (on_interval) on_interval(target.direction, target.intervals.back());
        });

    auto path_of = [](const json &side) { return side.value("path", std::string("?")); };
    if (latency) {
        first.data_path = path_of(client_result);
    } else if (bidir) {
        results[0].data_path =
            path_of(client_result.at("send")) + " -> " + path_of(server_result.at("receive"));
        results[1].data_path =
            path_of(server_result.at("send")) + " -> " + path_of(client_result.at("receive"));
    } else {
        const json &s = reverse ? server_result : client_result;
        const json &r = reverse ? client_result : server_result;
        first.data_path = path_of(s) + " -> " + path_of(r);
    }
    if (latency) {
        fill_latency(first, client_result, server_result);
    } else if (bidir) {
        fill_throughput(results[0], client_result.at("send"), server_result.at("receive"));
        fill_throughput(results[1], server_result.at("send"), client_result.at("receive"));
    } else {
        fill_throughput(first, reverse ? server_result : client_result,
                        reverse ? client_result : server_result);
    }
    pair.close();
}

}  // namespace

std::vector<report::case_result> run_case(const plugin::transport_info &transport,
                                          const case_spec &spec, const interval_sink &on_interval) {
    report::case_result base;
    base.plugin = transport.plugin_name;
    base.transport = transport.id;
    base.mode = spec.mode;
    base.message_size = spec.size;
    base.streams = spec.streams;
    base.rate = spec.rate;
    base.batch = spec.batch;
    for (const auto &o : transport.options) base.options[o.key] = o.default_value;
    for (const auto &[k, v] : spec.options) base.options[k] = v;
    std::vector<report::case_result> results;
    if (spec.mode == "throughput" && spec.direction == "bidir") {
        base.bidir = true;
        results = {base, base};
        results[1].direction = "reverse";
    } else {
        if (spec.mode == "throughput") base.direction = spec.direction;
        results = {base};
    }
    std::string status = "ok", error;
    worker_outputs outputs;  // outlives the pair inside measure(), whatever happens there
    try {
        if (spec.zero_copy == "on" && !transport.calls.zero_copy_send)
            throw std::runtime_error(transport.id +
                                     " has no zero-copy send (borrow/publish, ABI 1.1); use "
                                     "--zero-copy auto or off");
        measure(transport, spec, results, on_interval, outputs);
    } catch (const pair_interrupted &e) {
        status = "interrupted";
        error = e.what();
    } catch (const pair_failure &e) {
        // A kernel or transport limit the message size exceeds is a skip with the plugin's
        // explanation (which limit, how to raise it), not a failure of the run.
        status = e.status == IPCB_E_TOO_BIG && e.stage == "setup" ? "skipped" : "failed";
        error = e.what();
    } catch (const std::exception &e) {
        status = "failed";
        error = e.what();
    }
    for (const auto &[side, printed] : outputs)
        if (printed.bytes > 0)
            for (auto &r : results) r.worker_output[side] = {printed.bytes, printed.text};
    if (status != "ok")
        for (auto &r : results) {
            r.status = status;
            r.error = error;
            r.options.insert(results.front().options.begin(), results.front().options.end());
        }
    else if (results.size() > 1)
        results[1].options = results[0].options;
    return results;
}

}  // namespace ipcbench::harness
