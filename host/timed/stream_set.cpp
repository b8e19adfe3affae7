#include "timed/stream_set.hpp"

#include <spdlog/spdlog.h>
#include <cstdlib>

#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "control/message_kind.hpp"
#include "control/worker_messages.hpp"
#include "model/interval_figures.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/last_words.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/resource_usage.hpp"
#include "timed/event_engines.hpp"
#include "timed/stream_progress.hpp"
#include "timed/stream_task.hpp"
#include "timed/timed_loops.hpp"

namespace ipcbench::timed {
namespace {

using model::job_kind;
using nlohmann::json;

bool reports_intervals(job_kind part) {
    return part == job_kind::receive || part == job_kind::ping;
}

// A stream that failed while others still run: they may wait forever on peers that depend on it.
const loop_result *first_failure(const std::deque<stream_task> &tasks) {
    for (const auto &t : tasks)
        if (t.progress.finished.load(std::memory_order_acquire) && t.result.failed())
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
        : size_(j.settings.size_bytes),
          interval_ns_(model::to_ns(j.settings.interval_s)),
          tasks_(tasks),
          channel_(channel),
          start_(platform::now_ns() + model::to_ns(j.settings.warmup_s)),
          last_end_(start_),
          next_(interval_ns_ > 0 ? start_ + interval_ns_ : INT64_MAX) {}

    std::int64_t next_due() const { return next_; }

    // A report once an interval has ended: what was counted since the last one, over the time
    // since the last one as measured (a report a little late, or after a stall, covers the
    // longer span and says so), so every rate is messages over their own seconds and the
    // reports add up to the run. The next one is due at the next point of the interval grid.
    void report_due() {
        const std::int64_t now = platform::now_ns();
        if (now < next_) return;
        send(now);
        while (next_ <= now) next_ += interval_ns_;
    }

    void report_last() {
        report_due();  // so the remainder below is shorter than an interval
        const std::int64_t now = platform::now_ns();
        // The part after the last full interval: always when it holds messages (the lines add up
        // to the run), otherwise only when it is not a sliver (1 % of an interval or more).
        if (interval_ns_ > 0 && now > last_end_) send(now, (now - last_end_) * 100 < interval_ns_);
    }

private:
    void send(std::int64_t now, bool only_if_new = false) {
        const std::int64_t end = now;
        std::uint64_t messages = 0, expected = 0;
        bool reporting = false;
        for (const auto &t : tasks_)
            if (reports_intervals(t.part)) {
                reporting = true;
                messages += t.progress.messages.load(std::memory_order_relaxed);
                expected += t.progress.expected_next.load(std::memory_order_relaxed);
            }
        if (!reporting || (only_if_new && messages == last_messages_)) return;
        const std::uint64_t lost = expected > messages ? expected - messages : 0;
        model::interval_figures figures{
            static_cast<double>(now - start_) / 1e9, static_cast<double>(end - last_end_) / 1e9,
            messages - last_messages_, (messages - last_messages_) * size_,
            lost > last_lost_ ? lost - last_lost_ : 0};
        json event = figures;
        event = control::message(control::message_kind::interval, std::move(event));
        channel_.send(event);
        last_messages_ = messages;
        last_lost_ = lost;
        last_end_ = end;
    }

    const std::uint64_t size_;
    const std::int64_t interval_ns_;
    const std::deque<stream_task> &tasks_;
    control::control_channel &channel_;
    const std::int64_t start_;
    std::int64_t last_end_, next_;
    std::uint64_t last_messages_ = 0, last_lost_ = 0;
};

// Tells the orchestrator at once (a result with the error ends the case, and both workers with
// it) instead of joining threads blocked in plugin calls; then waits to be ended.
[[noreturn]] void report_failure_and_wait(const loop_result &failure,
                                          control::control_channel &channel) {
    json result = model::worker_result{{failure}};
    result = control::message(control::message_kind::result, std::move(result));
    channel.send(result);
    try {
        for (;;) channel.receive(-1);  // until the orchestrator closes the channel or kills us
    } catch (const std::exception &) {
    }
    std::_Exit(1);
}

std::deque<stream_task> tasks_for(const job &j) {
    std::deque<stream_task> tasks;  // stable addresses for the threads
    for (int k = 0; k < j.settings.streams; ++k) {
        if (j.kind == job_kind::bidir) {
            tasks.emplace_back(job_kind::receive, k);
            tasks.emplace_back(job_kind::send, k);
        } else {
            tasks.emplace_back(j.kind, k);
        }
    }
    return tasks;
}

void run_task(stream_task &t, const job &j, const endpoint_lookup &endpoint_for) {
    try {
        switch (t.part) {
            case job_kind::send:
                t.result = run_sender(endpoint_for(t.stream, IPCB_DIR_SEND), j, t.progress);
                break;
            case job_kind::receive:
                t.result = run_receiver(endpoint_for(t.stream, IPCB_DIR_RECV), j, t.progress);
                break;
            case job_kind::ping:
                t.result = run_pinger(endpoint_for(t.stream, IPCB_DIR_SEND),
                                      endpoint_for(t.stream, IPCB_DIR_RECV), j, t.progress);
                break;
            default:
                t.result = run_ponger(endpoint_for(t.stream, IPCB_DIR_RECV),
                                      endpoint_for(t.stream, IPCB_DIR_SEND), j, t.progress);
        }
    } catch (const std::exception &e) {
        t.result.part = t.part;
        t.result.error = e.what();
        t.result.status = IPCB_E_INTERNAL;
    }
    t.progress.finished.store(true, std::memory_order_release);
}

// The peer's senders are done: receivers of unreliable transports now know what to expect.
void pass_sender_counts(std::deque<stream_task> &tasks, const json &message) {
    if (!control::is(message, control::message_kind::sender_done)) return;
    const auto counts = control::read_sender_counts(message).streams;
    for (auto &t : tasks)
        if (t.part == job_kind::receive && t.stream < static_cast<int>(counts.size()))
            t.progress.peer_sent.store(counts[t.stream], std::memory_order_release);
}

// Serves the control channel until every stream is done.
void serve_until_done(const job &j, std::deque<stream_task> &tasks,
                      control::control_channel &channel) {
    bool sent_reported = !model::sends(j.kind);
    interval_reporter intervals(j, tasks, channel);
    for (;;) {
        bool all_done = true, senders_done = true;
        for (auto &t : tasks) {
            const bool done = t.progress.finished.load(std::memory_order_acquire);
            all_done &= done;
            if (t.part == job_kind::send) senders_done &= done;
        }
        if (senders_done && !sent_reported) {
            control::sender_counts counts;
            for (auto &t : tasks)
                if (t.part == job_kind::send)
                    counts.streams.push_back(static_cast<std::int64_t>(t.result.messages_sent));
            channel.send(control::write_message(counts));
            sent_reported = true;
        }
        if (all_done) {
            intervals.report_last();  // the part after the last full interval, if any
            return;
        }
        if (const loop_result *failure = first_failure(tasks))
            report_failure_and_wait(*failure, channel);
        intervals.report_due();
        const std::int64_t wait_until =
            std::min(platform::now_ns() + 20'000'000, intervals.next_due());
        if (auto message = channel.receive(wait_until)) pass_sender_counts(tasks, *message);
    }
}

// serve_until_done while threads run the streams. A channel failing meanwhile (the orchestrator
// gone: ipchost killed, its socket closed; garbage on it) must not unwind past them: a joinable
// std::thread destroyed is std::terminate, an abort that left every object the creators made
// (4 System V queues in a test, one run in three under load), and joining waits for threads
// that may be blocked in plugin calls or run to the end of --duration. The process ends here
// with its last words instead, as on SIGTERM: the creators' objects removed.
void serve_beside_threads(const job &j, std::deque<stream_task> &tasks,
                          control::control_channel &channel) {
    try {
        serve_until_done(j, tasks, channel);
    } catch (const std::exception &e) {
        spdlog::error("worker: {} while its streams ran; ending it, what it made removed",
                      e.what());
        platform::terminate_with_last_words();
    }
}

// The streams of each part summed; the process's peak memory, read once they are all done.
model::worker_result summed(std::deque<stream_task> &tasks) {
    model::worker_result out;
    const std::int64_t rss = platform::sample_resource_usage().max_rss_kib;
    for (job_kind part : {job_kind::receive, job_kind::send, job_kind::ping, job_kind::pong}) {
        std::vector<loop_result> streams;
        for (auto &t : tasks)
            if (t.part == part) streams.push_back(std::move(t.result));
        if (streams.empty()) continue;
        out.parts.push_back(model::sum_streams(part, std::move(streams)));
        out.parts.back().usage.max_rss_kib = rss;
    }
    return out;
}

}  // namespace

model::worker_result run_streams(const job &j, const endpoint_lookup &endpoint_for,
                                 control::control_channel &channel) {
    if (j.cpu >= 0) {
        // Before the threads start, so they all inherit it.
        std::string problem = platform::pin_process_to_cpu(j.cpu);
        if (!problem.empty()) {
            loop_result failed;
            failed.part = model::receives(j.kind) ? job_kind::receive : j.kind;
            failed.error = problem + " (--affinity)";
            return {{failed}};
        }
    }
    std::deque<stream_task> tasks = tasks_for(j);
    std::vector<std::thread> threads;
    if (j.settings.io != model::io_engine::threads) {
        // A few threads multiplex every stream; this thread serves the channel as before.
        engine_threads loops(tasks, j, endpoint_for,
                             j.settings.io == model::io_engine::epoll ? make_readiness_engine
                                                                      : make_completion_engine);
        serve_beside_threads(j, tasks, channel);
        loops.join();
        return summed(tasks);
    }
    if (tasks.size() == 1 && j.settings.interval_s == 0) {
        // One stream and no live reports: run it on this thread. A process that never started a
        // thread keeps glibc's single-threaded fast paths (read and write skip the cancellation
        // bookkeeping), as the plain loops it is compared with do.
        tasks.front().progress.poll_control = [&] {
            if (auto message = channel.poll()) pass_sender_counts(tasks, *message);
        };
        run_task(tasks.front(), j, endpoint_for);
    } else {
        threads.reserve(tasks.size());
        for (auto &t : tasks)
            threads.emplace_back([&t, &j, &endpoint_for] { run_task(t, j, endpoint_for); });
    }
    if (threads.empty())
        serve_until_done(j, tasks, channel);  // a failure unwinds to the worker's own last words
    else
        serve_beside_threads(j, tasks, channel);
    for (auto &t : threads) t.join();
    return summed(tasks);
}

}  // namespace ipcbench::timed
