// The readiness engine: where the harness times messages when few threads drive many streams.
#include "harness/event_loop.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "harness/loop_failure.hpp"
#include "harness/message_header.hpp"
#include "harness/payload_pattern.hpp"
#include "harness/receive_tally.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/readiness_poller.hpp"
#include "platform/resource_usage.hpp"
#include "platform/thread_placement.hpp"
#include "stats/latency_histogram.hpp"

namespace ipcbench::harness {
namespace {

using model::job;
using model::job_kind;
using model::loop_result;
using platform::now_ns;

// Messages one stream may move per turn before the others get theirs.
constexpr int turn_budget = 16;
// How often timeouts of unreliable transports are looked at.
constexpr std::int64_t housekeeping_ns = 20'000'000;
// Unreliable transports: a ping without pong is lost after this; a ponger gives up after
// silence this long (as the thread engine's loops).
constexpr std::int64_t ping_timeout_ns = 200'000'000;
constexpr std::int64_t pong_silence_ns = 2'000'000'000;
constexpr std::int64_t quiet_ns = 20'000'000;  // receivers: the sender is done, nothing came

// One message on its way out, possibly in parts (a stream's try_send may take some of it).
struct outgoing {
    std::vector<unsigned char> bytes;
    std::size_t offset = 0;
    bool busy = false;  // a message is being sent
    std::uint64_t header = 0;
};

// One message coming in, reassembled across reads on a stream transport.
struct incoming {
    std::vector<unsigned char> bytes;  // allocated at the first partial message
    std::size_t held = 0;
};

// One task's state machine.
struct driven {
    stream_task *task = nullptr;
    plugin::transport_endpoint *out = nullptr, *in = nullptr;
    outgoing send;
    incoming recv;
    receive_tally tally;       // receive
    std::uint64_t seq = 0;     // send: timed messages sent; ping: pings sent
    std::uint64_t warm = 0;    // warm-up messages (round trips) done
    int end_markers = 0;       // still to send
    bool window_done = false;  // send/ping: the timed part is over
    bool done = false, queued = false, waiting_timer = false;
    std::int64_t slot_offset_ns = 0;  // paced: this stream's place in the period
    std::int64_t t0 = 0;              // ping: when the pending ping started
    std::int64_t last_activity = 0;   // pong, unreliable: the last message
    std::int64_t end_ns = 0;
    bool timed = false;  // pong: the first timed message came
    std::int64_t first_ns = 0;
    std::uint64_t echoed = 0, round_trips = 0, mismatched = 0, lost = 0, stale = 0, corrupted = 0;
};

class event_thread {
public:
    event_thread(std::vector<stream_task *> tasks, const job &j,
                 const endpoint_lookup &endpoint_for)
        : j_(j),
          size_(j.settings.size_bytes),
          pattern_(j.settings.size_bytes, model::receives(j.kind) || j.kind == job_kind::send
                                              ? pattern_offset(j)
                                              : header_bytes),
          paced_(j.settings.rate_per_s > 0 && j.kind != job_kind::ping && j.kind != job_kind::pong),
          period_ns_(paced_ ? 1e9 / j.settings.rate_per_s : 0) {
        drivers_.resize(tasks.size());
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            drivers_[i].task = tasks[i];
            attach(drivers_[i], endpoint_for);
        }
        scratch_.resize(j.stream ? std::max<std::size_t>(size_, 64 * 1024) : size_);
    }

    void run() {
        const std::int64_t start = now_ns();
        usage_before_ = platform::sample_thread_usage();
        warm_end_ = start + model::to_ns(j_.settings.warmup_s);
        if (warm_end_ <= start) begin_window(start);
        for (auto &d : drivers_) register_events(d);
        for (auto &d : drivers_) enqueue(d);
        std::int64_t next_housekeeping = start + housekeeping_ns;
        std::vector<platform::readiness_poller::event> events(256);
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
            now = now_ns();
            std::int64_t wait = ready_.empty() ? next_housekeeping - now : 0;
            if (!timers_.empty()) wait = std::min(wait, timers_.top().first - now);
            if (!window_begun_) wait = std::min(wait, warm_end_ - now);
            const int n = poller_.wait(events.data(), static_cast<int>(events.size()),
                                       std::max<std::int64_t>(wait, 0));
            for (int i = 0; i < n; ++i) enqueue(drivers_[events[i].tag]);
        }
        finish_usage();
    }

private:
    void attach(driven &d, const endpoint_lookup &endpoint_for) {
        switch (d.task->part) {
            case job_kind::send: d.out = &endpoint_for(d.task->stream, IPCB_DIR_SEND); break;
            case job_kind::receive: d.in = &endpoint_for(d.task->stream, IPCB_DIR_RECV); break;
            default:
                d.out = &endpoint_for(d.task->stream, IPCB_DIR_SEND);
                d.in = &endpoint_for(d.task->stream, IPCB_DIR_RECV);
        }
        d.end_markers = j_.reliable ? 1 : 3;
        if (d.out) d.send.bytes.assign(size_, 0);
        if (d.out) pattern_.write(d.send.bytes.data(), 0);
        if (paced_ && j_.settings.streams > 1)
            d.slot_offset_ns = static_cast<std::int64_t>(
                period_ns_ * (d.task->stream % j_.settings.streams) / j_.settings.streams);
        ++live_;
    }

    // Adds the task's descriptors to the poller; a transport that cannot name one fails it.
    void register_events(driven &d) {
        try {
            std::uint64_t tag = static_cast<std::uint64_t>(&d - drivers_.data());
            std::string why_not;
            ipcb_event_source in{}, out{};
            if (d.in) in = d.in->event_source(&why_not);
            if (why_not.empty() && d.out && d.out != d.in) out = d.out->event_source(&why_not);
            if (!why_not.empty()) {
                fail(d, *(d.in ? d.in : d.out), IPCB_E_UNSUPPORTED, "event_source", why_not);
                return;
            }
            if (d.in) {
                std::uint32_t events = in.recv_events | (d.out == d.in ? in.send_events : 0);
                poller_.add(in.handle, events, tag);
                handles_.push_back(in.handle);
            }
            if (d.out && d.out != d.in) {
                poller_.add(out.handle, out.send_events, tag);
                handles_.push_back(out.handle);
            }
        } catch (const std::exception &e) {
            fail(d, *(d.in ? d.in : d.out), IPCB_E_INTERNAL, "event_source", e.what());
        }
    }

    void enqueue(driven &d) {
        if (d.done || d.queued) return;
        d.queued = true;
        ready_.push_back(&d);
    }

    void take_turns() {
        std::vector<driven *> turn;
        turn.swap(ready_);
        for (driven *d : turn) {
            d->queued = false;
            if (!d->done && drive(*d)) enqueue(*d);
        }
        turn.clear();
        if (ready_.empty()) ready_.swap(turn);  // keep the capacity
    }

    // One turn; true when the task could go on at once (its budget ran out).
    bool drive(driven &d) {
        switch (d.task->part) {
            case job_kind::send: return drive_sender(d);
            case job_kind::receive: return drive_receiver(d);
            case job_kind::ping: return drive_pinger(d);
            default: return drive_ponger(d);
        }
    }

    // ---- sending, shared by every part ----------------------------------------------------

    // Pushes the message in d.send out; true when it all went, false when the transport would
    // block (or failed: d is then done).
    bool push(driven &d) {
        while (d.send.offset < size_) {
            std::size_t n = 0;
            const std::size_t left = size_ - d.send.offset;
            int32_t s = d.out->try_send_raw(d.send.bytes.data() + d.send.offset, left, &n);
            if (s == IPCB_E_TIMEOUT) return false;
            if (s == IPCB_OK && (n == 0 || n > left))
                s = d.out->contract_violation("try_send returned IPCB_OK with " +
                                              std::to_string(n) + " of " + std::to_string(left) +
                                              " bytes taken");
            if (s != IPCB_OK) {
                fail(d, *d.out, s, "try_send");
                return false;
            }
            d.send.offset += n;
        }
        d.send.busy = false;
        return true;
    }

    void start_message(driven &d, std::uint64_t header, std::int64_t scheduled = 0) {
        unsigned char *m = d.send.bytes.data();
        write_header(m, header);
        if (j_.settings.verify) pattern_.write(m, header & sequence_mask);
        if (paced_) write_u64(m + timestamp_offset, static_cast<std::uint64_t>(scheduled));
        d.send.header = header;
        d.send.offset = 0;
        d.send.busy = true;
    }

    // ---- throughput -----------------------------------------------------------------------

    // What the sender sends next; false when nothing now (paced: a timer is set; or done).
    bool next_to_send(driven &d, std::int64_t now) {
        const auto &c = j_.settings;
        if (!window_begun_) {
            if (now < warm_end_) {
                start_message(d, flag_warmup | d.warm);
                return true;
            }
            begin_window(now);
        }
        if (!d.window_done) {
            std::int64_t scheduled = 0;
            if (paced_) {
                const std::uint64_t slot = d.seq - d.seq % static_cast<std::uint64_t>(c.burst);
                scheduled = window_start_ + d.slot_offset_ns +
                            static_cast<std::int64_t>(static_cast<double>(slot) * period_ns_);
                if (!c.count && scheduled >= window_end_) {
                    close_window(d, now);
                } else if (scheduled > now) {
                    set_timer(d, scheduled);
                    return false;
                }
            } else if (c.count ? d.seq >= c.count : now >= window_end_) {
                close_window(d, now);
            }
            if (!d.window_done && c.count && d.seq >= c.count) close_window(d, now);
            if (!d.window_done) {
                start_message(d, d.seq, scheduled);
                return true;
            }
        }
        if (d.end_markers == 0) {
            finish_sender(d);
            return false;
        }
        start_message(d, flag_end | d.seq);
        return true;
    }

    void close_window(driven &d, std::int64_t now) {
        d.window_done = true;
        d.end_ns = now;
    }

    void sent_one(driven &d) {
        const std::uint64_t h = d.send.header;
        if (h & flag_end) {
            --d.end_markers;
        } else if (h & flag_warmup) {
            ++d.warm;
        } else {
            ++d.seq;
            d.task->progress.messages.store(d.seq, std::memory_order_relaxed);
            if (j_.settings.count && d.seq >= j_.settings.count) close_window(d, now_ns());
        }
    }

    bool drive_sender(driven &d) {
        d.waiting_timer = false;
        for (int i = 0; i < turn_budget; ++i) {
            if (!d.send.busy && !next_to_send(d, now_ns())) return false;
            if (!push(d)) return false;
            sent_one(d);
        }
        return true;
    }

    void finish_sender(driven &d) {
        loop_result r;
        r.part = job_kind::send;
        r.messages_sent = d.seq;
        r.bytes_sent = d.seq * size_;
        r.warmup_messages = d.warm;
        r.first_ns = window_start_;
        r.end_ns = d.end_ns;
        finish(d, std::move(r));
    }

    // Reads what is there into the thread's scratch buffer and hands each whole message to
    // on_message (false: stop, it was the last). Returns the status of the last read:
    // IPCB_E_TIMEOUT when the transport would block.
    template <class OnMessage>
    int32_t read_some(driven &d, OnMessage &&on_message) {
        std::size_t n = 0;
        const std::size_t cap = j_.stream ? scratch_.size() : size_;
        int32_t s = d.in->try_recv_raw(scratch_.data(), cap, &n);
        if (s != IPCB_OK) return s;
        if (n == 0 || n > cap)
            return d.in->contract_violation("try_recv returned IPCB_OK with " + std::to_string(n) +
                                            " bytes for a " + std::to_string(cap) + "-byte buffer");
        if (!j_.stream) {
            if (n != size_)
                return d.in->contract_violation("a message of " + std::to_string(n) +
                                                " bytes, where every one has " +
                                                std::to_string(size_));
            on_message(scratch_.data());
            return IPCB_OK;
        }
        const unsigned char *p = scratch_.data();
        incoming &r = d.recv;
        if (r.held > 0) {
            const std::size_t take = std::min(size_ - r.held, n);
            std::memcpy(r.bytes.data() + r.held, p, take);
            r.held += take;
            p += take;
            n -= take;
            if (r.held < size_) return IPCB_OK;
            r.held = 0;
            if (!on_message(r.bytes.data())) return IPCB_OK;
        }
        for (; n >= size_; p += size_, n -= size_)
            if (!on_message(p)) return IPCB_OK;
        if (n > 0) {
            if (r.bytes.size() < size_) r.bytes.resize(size_);
            std::memcpy(r.bytes.data(), p, n);
            r.held = n;
        }
        return IPCB_OK;
    }

    bool drive_receiver(driven &d) {
        stats::latency_histogram *one_way = paced_ ? &one_way_ : nullptr;
        auto on_message = [&](const unsigned char *m) {
            return d.tally.count(m, j_, pattern_, one_way, [] {});
        };
        for (int i = 0; i < turn_budget; ++i) {
            const int32_t s = read_some(d, on_message);
            if (!d.tally.ended_by.empty()) break;
            if (s == IPCB_E_TIMEOUT) return false;
            if (s == IPCB_E_CLOSED) {
                d.tally.ended_by = "closed";
                d.tally.end = d.tally.received ? now_ns() : 0;
                break;
            }
            if (s != IPCB_OK) {
                fail(d, *d.in, s, "try_recv");
                return false;
            }
            d.task->progress.messages.store(d.tally.received, std::memory_order_relaxed);
            d.task->progress.expected_next.store(d.tally.sequences.highest_plus_one(),
                                                 std::memory_order_relaxed);
        }
        if (d.tally.ended_by.empty()) return true;
        finish_receiver(d);
        return false;
    }

    void finish_receiver(driven &d) {
        d.task->progress.messages.store(d.tally.received, std::memory_order_relaxed);
        d.task->progress.expected_next.store(d.tally.sequences.highest_plus_one(),
                                             std::memory_order_relaxed);
        finish(d, d.tally.result(j_, path_name(job_kind::receive)));
    }

    // ---- ping-pong ------------------------------------------------------------------------

    // Starts the next ping, or the end marker; false when the pinger is done.
    bool next_ping(driven &d, std::int64_t now) {
        if (!window_begun_ && now >= warm_end_) begin_window(now);
        const auto &c = j_.settings;
        if (window_begun_ && !d.window_done && (c.count ? d.seq >= c.count : now >= window_end_))
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
    void pong_arrived(driven &d, const unsigned char *m, std::int64_t now) {
        const std::uint64_t header = read_header(m), sent = d.send.header;
        if (!j_.reliable && (header & ~sequence_mask) == 0 && (sent & ~sequence_mask) == 0 &&
            (header & sequence_mask) < (sent & sequence_mask)) {
            ++d.stale;  // a pong that came after its ping was counted lost
            return;
        }
        const std::int64_t started = d.t0;
        d.t0 = 0;
        if (sent & flag_warmup) {
            ++d.warm;
            return;
        }
        histogram_.record(static_cast<std::uint64_t>(now - started));
        ++d.round_trips;
        if ((header & sequence_mask) != (sent & sequence_mask))
            ++d.mismatched;
        else if (j_.settings.verify && !pattern_.matches(m, header & sequence_mask))
            ++d.corrupted;
        ++d.seq;
        d.end_ns = now;
        d.task->progress.messages.store(d.seq, std::memory_order_relaxed);
    }

    bool drive_pinger(driven &d) {
        for (int i = 0; i < turn_budget; ++i) {
            if (d.t0 == 0 && !d.send.busy) {
                if (!next_ping(d, now_ns())) return false;
            }
            if (d.send.busy) {
                const bool end_marker = (d.send.header & flag_end) != 0;
                if (!push(d)) return false;
                if (end_marker) {
                    --d.end_markers;
                    continue;
                }
            }
            bool got = false;
            const int32_t s = read_some(d, [&](const unsigned char *m) {
                pong_arrived(d, m, now_ns());
                got = true;
                return true;
            });
            if (s == IPCB_E_TIMEOUT) return false;
            if (s != IPCB_OK) {
                fail(d, *d.in, s, "try_recv");
                return false;
            }
            if (!got) return true;  // part of a pong: read on
        }
        return true;
    }

    void finish_pinger(driven &d) {
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

    bool drive_ponger(driven &d) {
        for (int i = 0; i < turn_budget; ++i) {
            if (d.send.busy) {
                if (!push(d)) return false;
                ++d.echoed;
                d.task->progress.messages.store(d.echoed, std::memory_order_relaxed);
            }
            bool ended = false, got = false;
            const int32_t s = read_some(d, [&](const unsigned char *m) {
                const std::uint64_t header = read_header(m);
                if (header & flag_end) {
                    ended = true;
                    return false;
                }
                if (!d.timed && !(header & flag_warmup)) {
                    d.timed = true;
                    d.first_ns = now_ns();
                }
                std::memcpy(d.send.bytes.data(), m, size_);
                d.send.header = header;
                d.send.offset = 0;
                d.send.busy = true;
                got = true;
                return false;  // echo it before reading the next
            });
            if (got || ended) d.last_activity = now_ns();
            if (ended || s == IPCB_E_CLOSED) {
                finish_ponger(d);
                return false;
            }
            if (s == IPCB_E_TIMEOUT) return false;
            if (s != IPCB_OK) {
                fail(d, *d.in, s, "try_recv");
                return false;
            }
            if (!got) return true;
        }
        return true;
    }

    void finish_ponger(driven &d) {
        loop_result r;
        r.part = job_kind::pong;
        r.echoed = d.echoed;
        r.first_ns = d.timed ? d.first_ns : now_ns();
        r.end_ns = now_ns();
        finish(d, std::move(r));
    }

    // ---- time -----------------------------------------------------------------------------

    void begin_window(std::int64_t now) {
        window_begun_ = true;
        window_start_ = now;
        window_end_ = now + model::to_ns(j_.settings.duration_s);
        usage_before_ = platform::sample_thread_usage();
    }

    void set_timer(driven &d, std::int64_t when) {
        if (d.waiting_timer) return;
        d.waiting_timer = true;
        timers_.emplace(when, &d);
    }

    void fire_timers(std::int64_t now) {
        while (!timers_.empty() && timers_.top().first <= now) {
            driven *d = timers_.top().second;
            timers_.pop();
            d->waiting_timer = false;
            enqueue(*d);
        }
    }

    // Unreliable transports: the timeouts the thread engine's blocking calls would have.
    void housekeeping(std::int64_t now) {
        if (j_.reliable) return;
        for (auto &d : drivers_) {
            if (d.done) continue;
            if (d.task->part == job_kind::receive &&
                d.task->progress.peer_sent.load(std::memory_order_acquire) >= 0 &&
                now - std::max(d.tally.last, d.tally.first) > quiet_ns) {
                d.tally.ended_by = "sender-done";
                d.tally.end = d.tally.last;
                finish_receiver(d);
            } else if (d.task->part == job_kind::ping && d.t0 != 0 && !d.send.busy &&
                       now - d.t0 > ping_timeout_ns) {
                if (window_begun_ && !(d.send.header & flag_warmup)) {
                    ++d.lost;
                    ++d.seq;
                }
                d.t0 = 0;
                d.recv.held = 0;
                enqueue(d);
            } else if (d.task->part == job_kind::pong && d.last_activity != 0 &&
                       now - d.last_activity > pong_silence_ns) {
                finish_ponger(d);
            }
        }
    }

    // ---- results --------------------------------------------------------------------------

    // The calls this part makes, as the thread engine names its paths.
    std::string path_name(job_kind part) const {
        switch (part) {
            case job_kind::send: return "try_send";
            case job_kind::receive: return "try_recv";
            case job_kind::ping: return "try_send -> try_recv";
            default: return "try_recv -> try_send";
        }
    }

    void fail(driven &d, plugin::transport_endpoint &ep, int32_t status, const char *what,
              const std::string &text = {}) {
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

    void finish(driven &d, loop_result r) {
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
    void finish_usage() {
        for (const auto handle : handles_) poller_.remove(handle);
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

    const job &j_;
    const std::size_t size_;
    const payload_pattern pattern_;
    const bool paced_;
    const double period_ns_;
    std::vector<driven> drivers_;
    std::vector<driven *> ready_;
    std::vector<std::int64_t> handles_;
    using timer = std::pair<std::int64_t, driven *>;
    std::priority_queue<timer, std::vector<timer>, std::greater<>> timers_;
    platform::readiness_poller poller_;
    std::vector<unsigned char> scratch_;
    stats::latency_histogram histogram_, one_way_;
    platform::resource_usage usage_before_;
    std::int64_t warm_end_ = 0, window_start_ = 0, window_end_ = 0;
    bool window_begun_ = false;
    int live_ = 0;
};

}  // namespace

event_loops::event_loops(std::deque<stream_task> &tasks, const job &j,
                         const endpoint_lookup &endpoint_for) {
    const int count =
        std::max(1, std::min<int>(j.settings.threads, static_cast<int>(tasks.size())));
    std::vector<std::vector<stream_task *>> shares(count);
    for (auto &t : tasks) shares[static_cast<std::size_t>(t.stream) % shares.size()].push_back(&t);
    threads_.reserve(shares.size());
    for (auto &share : shares)
        threads_.emplace_back([share = std::move(share), &j, &endpoint_for]() mutable {
            std::vector<stream_task *> mine = std::move(share);
            try {
                event_thread(mine, j, endpoint_for).run();
            } catch (const std::exception &e) {
                for (stream_task *t : mine) {
                    if (t->progress.finished.load(std::memory_order_acquire)) continue;
                    t->result.part = t->part;
                    t->result.error = std::string("event loop: ") + e.what();
                    t->result.status = IPCB_E_INTERNAL;
                    t->progress.finished.store(true, std::memory_order_release);
                }
            }
        });
}

event_loops::~event_loops() {
    join();
}

void event_loops::join() {
    for (auto &t : threads_)
        if (t.joinable()) t.join();
}

}  // namespace ipcbench::harness
