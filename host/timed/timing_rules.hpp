#pragma once

// The rules of a timed side, written once and pure (no clock, no I/O: the caller passes the
// time): the thread loops (throughput_loops.cpp, latency_loops.cpp) and both event engines
// (stream_engine.cpp and the engines built on it) ask these what to do next, so a rule such as
// --burst or the end of the window is changed here and nowhere else. Unit-tested with tables of
// inputs and decisions (tests/unit/test_timing_rules.cpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "model/case_settings.hpp"
#include "timed/message_header.hpp"

namespace ipcbench::timed::timing {

// Unreliable transports: a ping without its pong for this long is lost; a ponger that hears
// nothing for this long gives up (the pinger's end markers may all be lost); a receiver polls at
// this period, and once the sender's count is known and nothing came for as long, it is done.
constexpr std::int64_t lost_ping_ns = 200'000'000;
constexpr std::int64_t ponger_silence_ns = 2'000'000'000;
constexpr std::int64_t receiver_quiet_ns = 20'000'000;

// End markers a sender sends: one on a reliable transport, three where one may be dropped.
constexpr int end_markers(bool reliable) {
    return reliable ? 1 : 3;
}

// Reading the clock costs ~20 ns: unpaced small messages look at it every 16 sends only.
constexpr std::uint64_t clock_stride(std::size_t message_bytes) {
    return message_bytes >= 4096 ? 1 : 16;
}

// What a timed sender (a throughput sender's stream) does next.
struct send_step {
    enum kind { send, wait, end } what = end;
    std::uint32_t count = 0;  // send: messages, back to back, 1..batch
    std::int64_t due_ns = 0;  // send (paced): the slot written into them; wait: until when
};

// The schedule of one sending stream: given the settings, the timed messages sent so far and
// the clock, what comes next. Paced (--rate), every message has a slot, a stream's offset into
// the period (`slot_offset_ns`: the event engines spread their streams over it), and a --burst of
// messages shares the slot of its first; a slot is due however late the sender is (the receiver
// sees the lateness: no coordinated omission), but the window still ends on time. Unpaced, batches
// of up to --batch go until --count or the window's end; a count that ends inside a batch cuts the
// batch.
class send_schedule {
public:
    send_schedule(const model::case_settings &c, std::uint32_t batch)
        : count_(c.count),
          batch_(std::max<std::uint32_t>(1, batch)),
          burst_(static_cast<std::uint64_t>(std::max(1, c.burst))),
          period_ns_(c.rate_per_s > 0 ? 1e9 / c.rate_per_s : 0),
          duration_ns_(model::to_ns(c.duration_s)) {}

    bool paced() const { return period_ns_ > 0; }
    // Paced streams send one message a call; unpaced ones up to --batch.
    std::uint32_t batch() const { return paced() ? 1 : batch_; }
    void begin_window(std::int64_t start_ns) { start_ns_ = start_ns; }
    std::int64_t window_start() const { return start_ns_; }
    std::int64_t window_end() const { return start_ns_ + duration_ns_; }

    // When the timed message number `seq` is due (paced only).
    std::int64_t due(std::uint64_t seq, std::int64_t slot_offset_ns = 0) const {
        const std::uint64_t slot = seq - seq % burst_;
        return start_ns_ + slot_offset_ns +
               static_cast<std::int64_t>(static_cast<double>(slot) * period_ns_);
    }

    // `seq` timed messages of this stream are sent; it is `now_ns`.
    send_step next(std::uint64_t seq, std::int64_t now_ns, std::int64_t slot_offset_ns = 0) const {
        if (count_ ? seq >= count_ : now_ns >= window_end()) return {send_step::end, 0, 0};
        if (!paced()) {
            std::uint32_t n = batch_;
            if (count_ && count_ - seq < n) n = static_cast<std::uint32_t>(count_ - seq);
            return {send_step::send, n, 0};
        }
        const std::int64_t slot = due(seq, slot_offset_ns);
        if (!count_ && slot >= window_end()) return {send_step::end, 0, 0};
        if (slot > now_ns) return {send_step::wait, 0, slot};
        return {send_step::send, 1, slot};
    }

private:
    std::uint64_t count_;
    std::uint32_t batch_;
    std::uint64_t burst_;
    double period_ns_;
    std::int64_t duration_ns_;
    std::int64_t start_ns_ = 0;
};

// Whether a pinger's timed part is over: `seq` round trips done (lost ones included).
inline bool pings_done(const model::case_settings &c, std::uint64_t seq, std::int64_t now_ns,
                       std::int64_t window_end_ns) {
    return c.count ? seq >= c.count : now_ns >= window_end_ns;
}

// What a pong that arrived means for the ping that is out (both headers as sent).
enum class pong_verdict {
    stale,       // unreliable transport: the pong of an earlier ping, counted lost: skip it
    warmup,      // the pong of a warm-up ping: not timed
    matched,     // the pong of the timed ping that is out
    mismatched,  // a timed pong with another sequence (a reordering transport)
};

inline pong_verdict judge_pong(std::uint64_t ping, std::uint64_t pong, bool reliable) {
    const std::uint64_t flags = ~sequence_mask;
    if (!reliable && (pong & flags) == 0 && (ping & flags) == 0 &&
        (pong & sequence_mask) < (ping & sequence_mask))
        return pong_verdict::stale;
    if (ping & flag_warmup) return pong_verdict::warmup;
    return (pong & sequence_mask) == (ping & sequence_mask) ? pong_verdict::matched
                                                            : pong_verdict::mismatched;
}

// What a ponger does with a ping that arrived: echo it (the first timed one also opens the
// ponger's window: its figures exclude warm-up), or end at the pinger's end marker.
enum class pong_step { echo, echo_first_timed, end };

inline pong_step ponger_step(std::uint64_t header, bool timed_already) {
    if (header & flag_end) return pong_step::end;
    if (!timed_already && !(header & flag_warmup)) return pong_step::echo_first_timed;
    return pong_step::echo;
}

}  // namespace ipcbench::timed::timing
