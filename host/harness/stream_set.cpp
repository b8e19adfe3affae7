#include "harness/stream_set.hpp"

#include <cstdlib>

#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "harness/stream_progress.hpp"
#include "harness/timed_loops.hpp"
#include "harness/usage_json.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/resource_usage.hpp"
#include "stats/latency_histogram.hpp"

namespace ipcbench::harness {
namespace {

using nlohmann::json;

struct stream_task {
    stream_task(std::string role, int stream) : role(std::move(role)), stream(stream) {}
    std::string role;  // "send", "receive", "ping", "pong"
    int stream = 0;
    stream_progress progress;
    json result;
};

std::uint64_t sum(const std::vector<const json *> &parts, const char *key) {
    std::uint64_t total = 0;
    for (const json *p : parts) total += p->value(key, std::uint64_t{0});
    return total;
}

// Sums the figures of the streams of one role into one result.
json aggregate(const std::string &role, const std::vector<const json *> &parts) {
    json out = json::object();
    json streams = json::array();
    platform::resource_usage usage;
    std::int64_t first = INT64_MAX, end = 0;
    stats::latency_histogram histogram, one_way;
    bool any_one_way = false;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const json &r = *parts[k];
        streams.push_back(r);
        if (r.contains("path") && !out.contains("path")) out["path"] = r["path"];
        if (r.contains("error") && !out.contains("error")) {
            out["error"] = r["error"].get<std::string>() +
                           (parts.size() > 1 ? " (stream " + std::to_string(k) + ")" : "");
            out["status"] = r.value("status", 0);
        }
        if (r.contains("usage")) platform::accumulate(usage, usage_from_json(r["usage"]));
        if (r.value("first_ns", std::int64_t{0}) > 0)
            first = std::min(first, r["first_ns"].get<std::int64_t>());
        end = std::max(end, r.value("end_ns", std::int64_t{0}));
        if (r.contains("histogram"))
            histogram.merge(stats::latency_histogram::from_json(r["histogram"]));
        if (r.contains("one_way_histogram")) {
            one_way.merge(stats::latency_histogram::from_json(r["one_way_histogram"]));
            any_one_way = true;
        }
    }
    usage.max_rss_kib = platform::sample_resource_usage().max_rss_kib;
    out["streams"] = streams;
    out["first_ns"] = first == INT64_MAX ? 0 : first;
    out["end_ns"] = end;
    out["usage"] = usage_to_json(usage);
    static const char *counters[] = {
        "messages_sent", "warmup_messages",  "messages_received", "duplicates", "out_of_order",
        "corrupted",     "counted_messages", "round_trips",       "pings_sent", "lost",
        "mismatched",    "echoed",           "beyond_window"};
    for (const char *key : counters) {
        bool present = false;
        for (const json *p : parts) present |= p->contains(key);
        if (present) out[key] = sum(parts, key);
    }
    if (role == "ping") out["histogram"] = histogram.to_json();
    if (any_one_way) out["one_way_histogram"] = one_way.to_json();
    return out;
}

}  // namespace

namespace {

// A stream that failed while others still run: they may wait forever on peers that depend on it.
const json *first_failure(const std::deque<stream_task> &tasks) {
    for (const auto &t : tasks)
        if (t.progress.finished.load(std::memory_order_acquire) && t.result.contains("error"))
            return &t.result;
    return nullptr;
}

// Live --interval reports: what the receivers (or pingers) counted in each interval since the
// end of the warm-up, and at the end the part after the last full interval (so the lines add
// up to the run: its `seconds` is then shorter than the interval).
class interval_reporter {
public:
    interval_reporter(const job &j, const std::deque<stream_task> &tasks,
                      control::control_channel &channel)
        : j_(j),
          tasks_(tasks),
          channel_(channel),
          start_(platform::now_ns() + j.warmup_ns),
          last_end_(start_),
          next_(j.interval_ns > 0 ? start_ + j.interval_ns : INT64_MAX) {}

    std::int64_t next_due() const { return next_; }

    // Every full interval that has ended (more than one only after a stall).
    void report_due() {
        for (std::int64_t now = platform::now_ns(); now >= next_; next_ += j_.interval_ns)
            send(now, next_);
    }

    void report_last() {
        report_due();  // so the remainder below is shorter than an interval
        const std::int64_t now = platform::now_ns();
        // The part after the last full interval: always when it holds messages (the lines add up
        // to the run), otherwise only when it is not a sliver (1 % of an interval or more).
        if (j_.interval_ns > 0 && now > last_end_)
            send(now, now, (now - last_end_) * 100 < j_.interval_ns);
    }

private:
    void send(std::int64_t now, std::int64_t end, bool only_if_new = false) {
        std::uint64_t messages = 0, expected = 0;
        bool reporting = false;
        for (const auto &t : tasks_)
            if (t.role == "receive" || t.role == "ping") {
                reporting = true;
                messages += t.progress.messages.load(std::memory_order_relaxed);
                expected += t.progress.expected_next.load(std::memory_order_relaxed);
            }
        if (!reporting || (only_if_new && messages == last_messages_)) return;
        const std::uint64_t lost = expected > messages ? expected - messages : 0;
        channel_.send({{"type", "interval"},
                       {"end_s", static_cast<double>(now - start_) / 1e9},
                       {"seconds", static_cast<double>(end - last_end_) / 1e9},
                       {"messages", messages - last_messages_},
                       {"bytes", (messages - last_messages_) * j_.size},
                       {"lost", lost > last_lost_ ? lost - last_lost_ : 0}});
        last_messages_ = messages;
        last_lost_ = lost;
        last_end_ = end;
    }

    const job &j_;
    const std::deque<stream_task> &tasks_;
    control::control_channel &channel_;
    const std::int64_t start_;
    std::int64_t last_end_, next_;
    std::uint64_t last_messages_ = 0, last_lost_ = 0;
};

// Tells the orchestrator at once (a result with the error ends the case, and both workers with
// it) instead of joining threads blocked in plugin calls; then waits to be ended.
[[noreturn]] void report_failure_and_wait(const json &failure, control::control_channel &channel) {
    json result = failure;
    result["type"] = "result";
    channel.send(result);
    try {
        for (;;) channel.receive(-1);  // until the orchestrator closes the channel or kills us
    } catch (const std::exception &) {
    }
    std::_Exit(1);
}

}  // namespace

json run_streams(const job &j, const endpoint_lookup &endpoint_for,
                 control::control_channel &channel) {
    if (j.cpu >= 0) {
        // Before the threads start, so they all inherit it.
        std::string problem = platform::pin_process_to_cpu(j.cpu);
        if (!problem.empty()) return {{"error", problem + " (--affinity)"}, {"status", 0}};
    }
    std::deque<stream_task> tasks;  // stable addresses for the threads
    for (int k = 0; k < j.streams; ++k) {
        if (j.kind == "bidir") {
            tasks.emplace_back("receive", k);
            tasks.emplace_back("send", k);
        } else {
            tasks.emplace_back(j.kind, k);
        }
    }
    auto run_task = [&j, &endpoint_for](stream_task &t) {
        try {
            if (t.role == "send")
                t.result = run_sender(endpoint_for(t.stream, IPCB_DIR_SEND), j, t.progress);
            else if (t.role == "receive")
                t.result = run_receiver(endpoint_for(t.stream, IPCB_DIR_RECV), j, t.progress);
            else if (t.role == "ping")
                t.result = run_pinger(endpoint_for(t.stream, IPCB_DIR_SEND),
                                      endpoint_for(t.stream, IPCB_DIR_RECV), j, t.progress);
            else
                t.result = run_ponger(endpoint_for(t.stream, IPCB_DIR_RECV),
                                      endpoint_for(t.stream, IPCB_DIR_SEND), j, t.progress);
        } catch (const std::exception &e) {
            t.result = {{"error", e.what()}, {"status", IPCB_E_INTERNAL}};
        }
        t.progress.finished.store(true, std::memory_order_release);
    };
    auto handle_control = [&tasks](const json &message) {
        if (message["type"] != "sender_done") return;
        const auto counts = message.at("streams").get<std::vector<std::int64_t>>();
        for (auto &t : tasks)
            if (t.role == "receive" && t.stream < static_cast<int>(counts.size()))
                t.progress.peer_sent.store(counts[t.stream], std::memory_order_release);
    };

    std::vector<std::thread> threads;
    if (tasks.size() == 1 && j.interval_ns == 0) {
        // One stream and no live reports: run it on this thread. A process that never started a
        // thread keeps glibc's single-threaded fast paths (read and write skip the cancellation
        // bookkeeping), as the plain loops it is compared with do.
        tasks.front().progress.poll_control = [&] {
            if (auto message = channel.poll()) handle_control(*message);
        };
        run_task(tasks.front());
    } else {
        threads.reserve(tasks.size());
        for (auto &t : tasks) threads.emplace_back([&run_task, &t] { run_task(t); });
    }

    // Serve the control channel until every stream is done.
    const bool has_senders = j.kind == "send" || j.kind == "bidir";
    bool sent_reported = false;
    interval_reporter intervals(j, tasks, channel);
    for (;;) {
        bool all_done = true, senders_done = true;
        for (auto &t : tasks) {
            const bool done = t.progress.finished.load(std::memory_order_acquire);
            all_done &= done;
            if (t.role == "send") senders_done &= done;
        }
        if (has_senders && senders_done && !sent_reported) {
            json counts = json::array();
            for (auto &t : tasks)
                if (t.role == "send") counts.push_back(t.result.value("messages_sent", 0));
            channel.send({{"type", "sent"}, {"streams", counts}});
            sent_reported = true;
        }
        if (all_done) {
            intervals.report_last();  // the part after the last full interval, if any
            break;
        }
        if (const json *failure = first_failure(tasks)) report_failure_and_wait(*failure, channel);
        intervals.report_due();
        const std::int64_t wait_until =
            std::min(platform::now_ns() + 20'000'000, intervals.next_due());
        if (auto message = channel.receive(wait_until)) handle_control(*message);
    }
    for (auto &t : threads) t.join();

    if (j.kind == "bidir") {
        std::vector<const json *> sends, receives;
        for (auto &t : tasks) (t.role == "send" ? sends : receives).push_back(&t.result);
        json out = {{"send", aggregate("send", sends)},
                    {"receive", aggregate("receive", receives)}};
        for (const char *part : {"receive", "send"})
            if (out[part].contains("error")) {
                out["error"] = out[part]["error"];
                out["status"] = out[part]["status"];
            }
        return out;
    }
    std::vector<const json *> parts;
    parts.reserve(tasks.size());
    for (auto &t : tasks) parts.push_back(&t.result);
    return aggregate(j.kind, parts);
}

}  // namespace ipcbench::harness
