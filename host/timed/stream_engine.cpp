// What the event engines share: streams as state machines, the timed window, pacing, results.
#include "timed/stream_engine.hpp"

#include <algorithm>
#include <cstring>

#include "platform/monotonic_clock.hpp"
#include "platform/thread_placement.hpp"
#include "timed/loop_failure.hpp"
#include "timed/message_header.hpp"

namespace ipcbench::timed {
namespace {

using model::job;
using model::job_kind;
using model::loop_result;
using platform::now_ns;

// How often the timeouts of unreliable transports (timing_rules.hpp) are looked at.
constexpr std::int64_t housekeeping_ns = timing::receiver_quiet_ns;

}  // namespace

stream_engine::stream_engine(std::vector<stream_task *> tasks, const job &j,
                             const endpoint_lookup &endpoint_for)
    : j_(j),
      size_(j.settings.size_bytes),
      pattern_(j.settings.size_bytes, model::receives(j.kind) || j.kind == job_kind::send
                                          ? pattern_offset(j)
                                          : header_bytes),
      corrupt_(model::sends(j.kind)
                   ? message_to_corrupt(j.settings.verify, size_, pattern_offset(j))
                   : UINT64_MAX),
      paced_(j.settings.rate_per_s > 0 && j.kind != job_kind::ping && j.kind != job_kind::pong),
      batch_(j.stream && !paced_ && j.kind != job_kind::ping && j.kind != job_kind::pong
                 ? static_cast<std::uint32_t>(std::max(1, j.settings.batch))
                 : 1),
      period_ns_(paced_ ? 1e9 / j.settings.rate_per_s : 0),
      schedule_(j.settings, batch_) {
    drivers_.resize(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        drivers_[i].task = tasks[i];
        attach(drivers_[i], endpoint_for);
    }
}

void stream_engine::run() {
    const std::int64_t start = now_ns();
    usage_before_ = platform::sample_thread_usage();
    warm_end_ = start + model::to_ns(j_.settings.warmup_s);
    if (warm_end_ <= start) begin_window(start);
    for (auto &d : drivers_) prepare(d);
    for (auto &d : drivers_) enqueue(d);
    std::int64_t next_housekeeping = start + housekeeping_ns;
    unsigned busy_rounds = 0;
    while (live_ > 0) {
        std::int64_t now = now_ns();
        if (!window_begun_ && now >= warm_end_) begin_window(now);
        fire_timers(now);
        if (now >= next_housekeeping) {
            housekeeping(now);
            next_housekeeping = now + housekeeping_ns;
        }
        take_turns();
        if (live_ == 0) break;
        // While streams are still ready, look for more only every 4th round: a poll that finds
        // nothing is a system call per turn (a tenth of one stream's rate at 16 messages).
        if (!ready_.empty() && (++busy_rounds & 3) != 0) continue;
        now = now_ns();
        std::int64_t wait = ready_.empty() ? next_housekeeping - now : 0;
        if (!timers_.empty()) wait = std::min(wait, timers_.top().first - now);
        if (!window_begun_) wait = std::min(wait, warm_end_ - now);
        wait_io(std::max<std::int64_t>(wait, 0));
    }
    teardown();
    finish_usage();
}

void stream_engine::enqueue(driven &d) {
    if (d.done || d.queued) return;
    d.queued = true;
    ready_.push_back(&d);
}

void stream_engine::take_turns() {
    std::vector<driven *> turn;
    turn.swap(ready_);
    for (driven *d : turn) {
        d->queued = false;
        if (!d->done && drive(*d)) enqueue(*d);
    }
    turn.clear();
    if (ready_.empty()) ready_.swap(turn);  // keep the capacity
}

void stream_engine::write_message(driven &d, std::uint32_t index, std::uint64_t header,
                                  std::int64_t scheduled) {
    unsigned char *m = d.send.bytes.data() + std::size_t{index} * size_;
    write_header(m, header);
    if (j_.settings.verify) pattern_.write(m, header & sequence_mask);
    if (header == corrupt_) m[size_ - 1] ^= 1;  // a timed message's header is its number
    if (paced_) write_u64(m + timestamp_offset, static_cast<std::uint64_t>(scheduled));
}

void stream_engine::start_message(driven &d, std::uint64_t header, std::int64_t scheduled) {
    write_message(d, 0, header, scheduled);
    d.send.begin(header, size_);
}

std::string stream_engine::batch_name(const char *name) const {
    return batch_ > 1 ? std::string(name) + " x" + std::to_string(batch_) + " bytes" : name;
}

// Fills the rest of a batch behind its first message, up to `limit` messages: more warm-up
// messages while the warm-up lasts, or the timed ones the schedule gave (the window's end is
// seen at the next batch, as the thread loops see it every 16 messages). End markers go alone.
void stream_engine::extend_batch(driven &d, std::uint32_t limit, std::int64_t now) {
    const std::uint64_t first = d.send.header;
    if (limit <= 1 || (first & flag_end)) return;
    const bool warm = (first & flag_warmup) != 0;
    std::uint32_t n = 1;
    for (; n < limit; ++n) {
        if (warm && now >= warm_end_) break;
        write_message(d, n, warm ? flag_warmup | (d.warm + n) : d.seq + n, 0);
    }
    d.send.count = n;
    d.send.length = std::size_t{n} * size_;
}

// What the sender sends next; false when nothing now (paced: a timer is set; or done).
bool stream_engine::next_to_send(driven &d, std::int64_t now) {
    if (!window_begun_) {
        if (now < warm_end_) {
            start_message(d, flag_warmup | d.warm);
            extend_batch(d, batch_, now);
            return true;
        }
        begin_window(now);
    }
    if (!d.window_done) {
        const timing::send_step step = schedule_.next(d.seq, now, d.slot_offset_ns);
        if (step.what == timing::send_step::wait) {
            set_timer(d, step.due_ns);
            return false;
        }
        if (step.what == timing::send_step::send) {
            start_message(d, d.seq, step.due_ns);
            extend_batch(d, step.count, now);
            return true;
        }
        close_window(d, now);
    }
    if (d.end_markers == 0) {
        finish_sender(d);
        return false;
    }
    start_message(d, flag_end | d.seq);
    return true;
}

void stream_engine::close_window(driven &d, std::int64_t now) {
    d.window_done = true;
    d.end_ns = now;
}

void stream_engine::sent_one(driven &d) {
    const std::uint64_t h = d.send.header;
    if (h & flag_end) {
        --d.end_markers;
    } else if (h & flag_warmup) {
        d.warm += d.send.count;
    } else {
        d.seq += d.send.count;
        d.task->progress.messages.store(d.seq, std::memory_order_relaxed);
        if (j_.settings.count && d.seq >= j_.settings.count) close_window(d, now_ns());
    }
}

void stream_engine::finish_sender(driven &d) {
    loop_result r;
    r.part = job_kind::send;
    r.messages_sent = d.seq;
    r.bytes_sent = d.seq * size_;
    r.warmup_messages = d.warm;
    r.first_ns = window_start_;
    r.end_ns = d.end_ns;
    finish(d, std::move(r));
}

void stream_engine::finish_receiver(driven &d) {
    d.task->progress.messages.store(d.tally.received, std::memory_order_relaxed);
    d.task->progress.expected_next.store(d.tally.sequences.highest_plus_one(),
                                         std::memory_order_relaxed);
    finish(d, d.tally.result(j_, path_name(job_kind::receive)));
}

// Starts the next ping, or the end marker; false when the pinger is done.
bool stream_engine::next_ping(driven &d, std::int64_t now) {
    if (!window_begun_ && now >= warm_end_) begin_window(now);
    if (window_begun_ && !d.window_done && timing::pings_done(j_.settings, d.seq, now, window_end_))
        close_window(d, now);
    if (d.window_done) {
        if (d.end_markers == 0) {
            finish_pinger(d);
            return false;
        }
        start_message(d, flag_end | d.seq);
        return true;
    }
    start_message(d, window_begun_ ? d.seq : flag_warmup | d.warm);
    d.t0 = now;
    return true;
}

// A whole pong arrived for the pending ping.
void stream_engine::pong_arrived(driven &d, const unsigned char *m, std::int64_t now) {
    const std::uint64_t header = read_header(m);
    const timing::pong_verdict verdict = timing::judge_pong(d.send.header, header, j_.reliable);
    if (verdict == timing::pong_verdict::stale) {
        ++d.stale;  // a pong that came after its ping was counted lost
        return;
    }
    const std::int64_t started = d.t0;
    d.t0 = 0;
    if (verdict == timing::pong_verdict::warmup) {
        ++d.warm;
        return;
    }
    histogram_.record(static_cast<std::uint64_t>(now - started));
    ++d.round_trips;
    if (verdict == timing::pong_verdict::mismatched)
        ++d.mismatched;
    else if (j_.settings.verify && !pattern_.matches(m, header & sequence_mask))
        ++d.corrupted;
    ++d.seq;
    d.end_ns = now;
    d.task->progress.messages.store(d.seq, std::memory_order_relaxed);
}

void stream_engine::finish_pinger(driven &d) {
    loop_result r;
    r.part = job_kind::ping;
    r.pings_sent = d.seq + d.lost;
    r.round_trips = d.round_trips;
    r.lost = d.lost;
    r.mismatched = d.mismatched;
    r.stale_pongs = d.stale;
    r.corrupted = d.corrupted;
    r.warmup_messages = d.warm;
    r.first_ns = window_start_;
    r.end_ns = std::max(d.end_ns, window_start_);
    finish(d, std::move(r));
}

void stream_engine::finish_ponger(driven &d) {
    loop_result r;
    r.part = job_kind::pong;
    r.echoed = d.echoed;
    r.first_ns = d.timed ? d.first_ns : now_ns();
    r.end_ns = now_ns();
    finish(d, std::move(r));
}

void stream_engine::begin_window(std::int64_t now) {
    window_begun_ = true;
    window_start_ = now;
    window_end_ = now + model::to_ns(j_.settings.duration_s);
    schedule_.begin_window(now);
    usage_before_ = platform::sample_thread_usage();
}

void stream_engine::set_timer(driven &d, std::int64_t when) {
    if (d.waiting_timer) return;
    d.waiting_timer = true;
    timers_.emplace(when, &d);
}

void stream_engine::fire_timers(std::int64_t now) {
    while (!timers_.empty() && timers_.top().first <= now) {
        driven *d = timers_.top().second;
        timers_.pop();
        d->waiting_timer = false;
        enqueue(*d);
    }
}

// Unreliable transports: the timeouts the thread engine's blocking calls would have.
void stream_engine::housekeeping(std::int64_t now) {
    if (j_.reliable) return;
    for (auto &d : drivers_) {
        if (d.done) continue;
        if (d.task->part == job_kind::receive &&
            d.task->progress.peer_sent.load(std::memory_order_acquire) >= 0 &&
            now - std::max(d.tally.last, d.tally.first) > timing::receiver_quiet_ns) {
            d.tally.ended_by = "sender-done";
            d.tally.end = d.tally.last;
            finish_receiver(d);
        } else if (d.task->part == job_kind::ping && d.t0 != 0 && !d.send.busy &&
                   now - d.t0 > timing::lost_ping_ns) {
            if (window_begun_ && !(d.send.header & flag_warmup)) {
                ++d.lost;
                ++d.seq;
            }
            d.t0 = 0;
            d.recv.drop();
            enqueue(d);
        } else if (d.task->part == job_kind::pong && d.last_activity != 0 &&
                   now - d.last_activity > timing::ponger_silence_ns) {
            finish_ponger(d);
        }
    }
}

void stream_engine::fail(driven &d, plugin::transport_endpoint &ep, int32_t status,
                         const char *what, const std::string &text) {
    loop_result partial;
    partial.part = d.task->part;
    if (text.empty()) {
        finish(d, loop_failure(ep, status, what, std::move(partial)));
        return;
    }
    partial.error =
        ep.transport().id + " cannot run on --io epoll: " + text + " (use --io threads)";
    partial.status = status;
    finish(d, std::move(partial));
}

void stream_engine::finish(driven &d, loop_result r) {
    if (d.done) return;
    d.done = true;
    --live_;
    r.path = r.path.empty() ? path_name(d.task->part) : r.path;
    d.task->result = std::move(r);
    // At once, not when the thread ends: the control thread reports this side's senders
    // done, which an unreliable receiver of the peer may need before it can finish.
    d.task->progress.finished.store(true, std::memory_order_release);
}

// The thread's CPU over the window, shared out over its tasks so the sums stay exact; the
// thread's histogram rides on its first task of the part that records one.
void stream_engine::finish_usage() {
    const auto usage = platform::usage_between(usage_before_, platform::sample_thread_usage());
    const double share = drivers_.empty() ? 0 : 1.0 / static_cast<double>(drivers_.size());
    const std::int64_t thread = platform::current_thread_id();
    bool histogram_placed = false;
    for (auto &d : drivers_) {
        loop_result &r = d.task->result;
        r.usage.cpu_user_s = usage.cpu_user_s * share;
        r.usage.cpu_sys_s = usage.cpu_sys_s * share;
        r.usage.cpus_seen = usage.cpus_seen;
        r.thread_id = thread;
        const bool records =
            d.task->part == job_kind::ping || (paced_ && d.task->part == job_kind::receive);
        if (records && !histogram_placed) {
            r.histogram = d.task->part == job_kind::ping ? histogram_ : one_way_;
            histogram_placed = true;
        }
    }
}

void stream_engine::attach(driven &d, const endpoint_lookup &endpoint_for) {
    switch (d.task->part) {
        case job_kind::send: d.out = &endpoint_for(d.task->stream, IPCB_DIR_SEND); break;
        case job_kind::receive: d.in = &endpoint_for(d.task->stream, IPCB_DIR_RECV); break;
        default:
            d.out = &endpoint_for(d.task->stream, IPCB_DIR_SEND);
            d.in = &endpoint_for(d.task->stream, IPCB_DIR_RECV);
    }
    d.end_markers = timing::end_markers(j_.reliable);
    if (d.out) {
        const std::uint32_t slots = d.task->part == job_kind::send ? batch_ : 1;
        d.send.bytes.assign(size_ * slots, 0);
        for (std::uint32_t i = 0; i < slots; ++i)
            pattern_.write(d.send.bytes.data() + i * size_, 0);
    }
    if (paced_ && j_.settings.streams > 1)
        d.slot_offset_ns = static_cast<std::int64_t>(
            period_ns_ * (d.task->stream % j_.settings.streams) / j_.settings.streams);
    ++live_;
}

engine_threads::engine_threads(std::deque<stream_task> &tasks, const job &j,
                               const endpoint_lookup &endpoint_for, const engine_factory &make) {
    const int count =
        std::max(1, std::min<int>(j.settings.threads, static_cast<int>(tasks.size())));
    std::vector<std::vector<stream_task *>> shares(count);
    for (auto &t : tasks) shares[static_cast<std::size_t>(t.stream) % shares.size()].push_back(&t);
    threads_.reserve(shares.size());
    for (auto &share : shares)
        threads_.emplace_back([share = std::move(share), &j, &endpoint_for, make]() mutable {
            std::vector<stream_task *> mine = std::move(share);
            try {
                make(mine, j, endpoint_for)->run();
            } catch (const std::exception &e) {
                for (stream_task *t : mine) {
                    if (t->progress.finished.load(std::memory_order_acquire)) continue;
                    t->result.part = t->part;
                    t->result.error = std::string("event engine: ") + e.what();
                    t->result.status = IPCB_E_INTERNAL;
                    t->progress.finished.store(true, std::memory_order_release);
                }
            }
        });
}

engine_threads::~engine_threads() {
    join();
}

void engine_threads::join() {
    for (auto &t : threads_)
        if (t.joinable()) t.join();
}

}  // namespace ipcbench::timed
