// The readiness engine (--io epoll): where the harness times messages when few threads drive
// many streams through event_source, try_send and try_recv.
#include "timed/event_engines.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "platform/monotonic_clock.hpp"
#include "platform/readiness_poller.hpp"
#include "timed/message_header.hpp"
#include "timed/stream_engine.hpp"
#include "timed/timing_rules.hpp"

namespace ipcbench::timed {
namespace {

using model::job;
using model::job_kind;
using platform::now_ns;

// Messages one stream may move per turn before the others get theirs.
constexpr int turn_budget = 16;

// Large messages (a send or read of 64 KiB or more) take shorter turns, as iperf3's select()
// loop does: a sender writes one message a stream and goes round, a receiver reads up to
// 256 KiB of a stream, on past a short read (more may have come meanwhile) until the transport
// would block. With 16 128 KiB writes a turn and a receiver that stopped at its first short
// read, two TCP streams pinned one CPU a side ran with full receive queues whose data had left
// the cache: 2672 MB/s against 3481 this way, iperf3 -P 2 3656 (docs/benchmarks.md, What
// limits).
constexpr std::size_t large_call = std::size_t{64} * 1024;
constexpr std::size_t receive_turn_bytes = std::size_t{256} * 1024;

int sends_per_turn(std::size_t bytes_per_send) {
    return bytes_per_send >= large_call ? 1 : turn_budget;
}
int reads_per_turn(std::size_t bytes_per_read) {
    if (bytes_per_read < large_call) return turn_budget;
    return static_cast<int>(
        std::clamp<std::size_t>(receive_turn_bytes / bytes_per_read, 1, turn_budget));
}

// One thread's share: an epoll set over its streams' handles, edge-triggered. A stream is
// driven until the transport would block (then its handle wakes it) or its turn's budget is
// spent (then it stays on the ready list).
class readiness_engine final : public stream_engine {
public:
    readiness_engine(std::vector<stream_task *> tasks, const job &j,
                     const endpoint_lookup &endpoint_for)
        : stream_engine(std::move(tasks), j, endpoint_for) {
        scratch_.resize(j.stream ? size_ * batch_ : size_);
        sends_per_turn_ = sends_per_turn(size_ * batch_);
        reads_per_turn_ = reads_per_turn(scratch_.size());
        large_reads_ = scratch_.size() >= large_call;
        events_.resize(256);
    }

private:
    std::string path_name(job_kind part) const override {
        switch (part) {
            case job_kind::send: return batch_name("try_send");
            case job_kind::receive: return batch_name("try_recv");
            case job_kind::ping: return "try_send -> try_recv";
            default: return "try_recv -> try_send";
        }
    }

    void wait_io(std::int64_t timeout_ns) override {
        const int n = poller_.wait(events_.data(), static_cast<int>(events_.size()), timeout_ns);
        for (int i = 0; i < n; ++i) enqueue(drivers_[events_[i].tag]);
    }

    void teardown() override {
        for (const auto handle : handles_) poller_.remove(handle);
    }

    // Adds the task's descriptors to the poller; a transport that cannot name one fails it.
    void prepare(driven &d) override {
        plugin::transport_endpoint *either = d.in ? d.in : d.out;
        if (either == nullptr) return;  // attach gave every task one
        try {
            std::uint64_t tag = static_cast<std::uint64_t>(&d - drivers_.data());
            std::string why_not;
            ipcb_event_source in{}, out{};
            if (d.in) in = d.in->event_source(&why_not);
            if (why_not.empty() && d.out && d.out != d.in) out = d.out->event_source(&why_not);
            if (!why_not.empty()) {
                fail(d, *either, IPCB_E_UNSUPPORTED, "event_source", why_not);
                return;
            }
            if (d.in) {
                std::uint32_t events = in.recv_events | (d.out == d.in ? in.send_events : 0);
                poller_.add(in.handle, events, tag, !level_triggered(d));
                handles_.push_back(in.handle);
            }
            if (d.out && d.out != d.in) {
                poller_.add(out.handle, out.send_events, tag);
                handles_.push_back(out.handle);
            }
        } catch (const std::exception &e) {
            fail(d, *either, IPCB_E_INTERNAL, "event_source", e.what());
        }
    }

    // One turn; true when the task could go on at once (its budget ran out).
    bool drive(driven &d) override {
        switch (d.task->part) {
            case job_kind::send: return drive_sender(d);
            case job_kind::receive: return drive_receiver(d);
            case job_kind::ping: return drive_pinger(d);
            default: return drive_ponger(d);
        }
    }

    // Pushes what d.send holds out; true when it all went, false when the transport would
    // block (or failed: d is then done).
    bool push(driven &d) {
        while (d.send.offset < d.send.length) {
            std::size_t n = 0;
            const std::size_t left = d.send.length - d.send.offset;
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

    // Reads what is there and hands each whole message to on_message (false: stop, it was the
    // last, or the caller acts on it before the next). Returns the status of the read:
    // IPCB_E_TIMEOUT when the transport would block. A message transport's message lands in the
    // thread's scratch buffer; a stream's bytes land in the stream's own buffer behind the part
    // of a message held from the last read, so nothing is copied, and a read asks for what the
    // thread engine's does: --batch messages' worth.
    template <class OnMessage>
    int32_t read_some(driven &d, OnMessage &&on_message) {
        std::size_t n = 0;
        if (!j_.stream) {
            const int32_t s = d.in->try_recv_raw(scratch_.data(), size_, &n);
            if (s != IPCB_OK) return s;
            if (n != size_)
                return d.in->contract_violation(
                    "try_recv returned IPCB_OK with " + std::to_string(n) +
                    " bytes, where every message has " + std::to_string(size_));
            on_message(scratch_.data());
            return IPCB_OK;
        }
        if (d.task->part == job_kind::receive && !j_.settings.verify)
            return read_counting(d, std::forward<OnMessage>(on_message));
        message_reassembly &r = d.recv;
        if (!r.reserved()) r.reserve(size_, batch_, 0);
        if (!r.whole_message_held()) {  // otherwise one is left from the last read: hand it on
            const std::size_t cap = r.room_bytes();
            const int32_t s = d.in->try_recv_raw(r.room(), cap, &n);
            if (s != IPCB_OK) return s;
            if (n == 0 || n > cap)
                return d.in->contract_violation("try_recv returned IPCB_OK with " +
                                                std::to_string(n) + " bytes for a " +
                                                std::to_string(cap) + "-byte buffer");
            last_read_short_ = n < cap;
        }
        r.arrived(n, on_message);
        return IPCB_OK;
    }

    // A throughput receiver without --verify looks only at each message's first 16 bytes
    // (header, send time): a stream's bytes are read into the thread's one buffer, which stays
    // in cache, and only the head of a message cut by a read is kept per stream.
    template <class OnMessage>
    int32_t read_counting(driven &d, OnMessage &&on_message) {
        std::size_t n = 0;
        const int32_t s = d.in->try_recv_raw(scratch_.data(), scratch_.size(), &n);
        if (s != IPCB_OK) return s;
        if (n == 0 || n > scratch_.size())
            return d.in->contract_violation("try_recv returned IPCB_OK with " + std::to_string(n) +
                                            " bytes for a " + std::to_string(scratch_.size()) +
                                            "-byte buffer");
        last_read_short_ = n < scratch_.size();
        if (!d.recv.reserved()) d.recv.reserve(size_, 0, 16);
        d.recv.arrived_at(scratch_.data(), n, on_message);
        return IPCB_OK;
    }

    bool drive_sender(driven &d) {
        d.waiting_timer = false;
        // One clock read a turn (at most 16 messages), as the thread loops read it every 16
        // small messages: the window's end and a paced slot are seen within a turn.
        const std::int64_t now = now_ns();
        for (int i = 0; i < sends_per_turn_; ++i) {
            if (!d.send.busy && !next_to_send(d, now)) return false;
            if (!push(d)) return false;
            sent_one(d);
        }
        return true;
    }

    bool drive_receiver(driven &d) {
        stats::latency_histogram *one_way = paced_ ? &one_way_ : nullptr;
        auto on_message = [&](const unsigned char *m) {
            return d.tally.count(m, j_, pattern_, one_way, [] {});
        };
        for (int i = 0; i < reads_per_turn_; ++i) {
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
            // A small stream read that did not fill the buffer emptied it: a level-triggered
            // handle (below) says when more comes, which spares the read that would only say
            // EAGAIN. A large one reads on (reads_per_turn).
            if (level_triggered(d) && last_read_short_ && !large_reads_) return false;
        }
        if (d.tally.ended_by.empty()) return true;
        finish_receiver(d);
        return false;
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
                const timing::pong_step step = timing::ponger_step(header, d.timed);
                if (step == timing::pong_step::end) {
                    ended = true;
                    return false;
                }
                if (step == timing::pong_step::echo_first_timed) {
                    d.timed = true;
                    d.first_ns = now_ns();
                }
                std::memcpy(d.send.bytes.data(), m, size_);
                d.send.begin(header, size_);
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

    // A receive-only handle waits level-triggered (it says readable while data is there, and
    // never spins: nothing else is asked of it); a sending one edge-triggered (a writable
    // socket would otherwise wake the loop all the time).
    bool level_triggered(const driven &d) const {
        return d.task->part == job_kind::receive && d.out == nullptr;
    }

    platform::readiness_poller poller_;
    bool last_read_short_ = false;
    int sends_per_turn_ = turn_budget, reads_per_turn_ = turn_budget;
    bool large_reads_ = false;
    std::vector<platform::readiness_poller::event> events_;
    std::vector<std::int64_t> handles_;
    std::vector<unsigned char> scratch_;
};

}  // namespace

std::unique_ptr<stream_engine> make_readiness_engine(std::vector<stream_task *> tasks, const job &j,
                                                     const endpoint_lookup &endpoint_for) {
    return std::make_unique<readiness_engine>(std::move(tasks), j, endpoint_for);
}

}  // namespace ipcbench::timed
