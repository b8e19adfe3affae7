// One-way streaming: where the harness times throughput.
#include <algorithm>
#include <ctime>
#include <vector>

#include "platform/monotonic_clock.hpp"
#include "platform/thread_placement.hpp"
#include "stats/latency_histogram.hpp"
#include "stats/sequence_tracker.hpp"
#include "timed/loop_failure.hpp"
#include "timed/message_header.hpp"
#include "timed/payload_pattern.hpp"
#include "timed/receive_path.hpp"
#include "timed/receive_tally.hpp"
#include "timed/send_path.hpp"
#include "timed/timed_loops.hpp"
#include "timed/timing_rules.hpp"

namespace ipcbench::timed {
namespace {

using platform::now_ns;

// Waits until `when` (now_ns time): the system's sleep for the bulk, a spin for the last stretch
// (50 us on Linux), so the pacing error stays well below a microsecond when the CPU is free.
void wait_until(std::int64_t when) {
    if (when - now_ns() > 2 * platform::sleep_slack_ns) platform::sleep_until_ns(when);
    while (now_ns() < when) {
    }
}

// The untimed messages before the window, for at least the warm-up time. Returns the status of
// the last send; `warm` counts what went out.
int32_t send_warmup(send_path &path, const job &j, const payload_pattern &pattern,
                    bool write_payload, std::uint64_t &warm) {
    const std::int64_t warmup_ns = model::to_ns(j.settings.warmup_s);
    if (warmup_ns <= 0) return IPCB_OK;
    const std::uint64_t stride = timing::clock_stride(j.settings.size_bytes);
    const std::int64_t warm_end = now_ns() + warmup_ns;
    std::uint64_t next_check = stride;
    std::uint32_t n = 0;
    for (;;) {
        int32_t status = path.send(
            path.batch(),
            [&](unsigned char *m, std::uint32_t i) {
                write_header(m, flag_warmup | (warm + i));
                if (write_payload) pattern.write(m, warm + i);
            },
            &n, IPCB_WAIT_FOREVER);
        warm += n;
        if (status != IPCB_OK) return status;
        if (warm >= next_check) {
            if (now_ns() >= warm_end) return IPCB_OK;
            next_check = warm + stride;
        }
    }
}

// The end marker. An unreliable transport may drop it, so send a few; the receiver also learns
// the sent count through the control channel.
int32_t send_end_markers(send_path &path, const job &j, const payload_pattern &pattern,
                         bool write_payload, std::uint64_t seq) {
    std::uint32_t n = 0;
    for (int i = 0; i < timing::end_markers(j.reliable); ++i) {
        const int32_t status = path.send(
            1,
            [&](unsigned char *m, std::uint32_t) {
                write_header(m, flag_end | seq);
                if (write_payload) pattern.write(m, seq);
            },
            &n, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) return status;
    }
    return IPCB_OK;
}

}  // namespace

loop_result run_sender(plugin::transport_endpoint &out, const job &j, stream_progress &p) {
    const model::case_settings &c = j.settings;
    const bool paced = c.rate_per_s > 0;
    send_path path(out, c.size_bytes, paced ? 1 : static_cast<std::uint32_t>(c.batch), c.zero_copy);
    const payload_pattern pattern(c.size_bytes, pattern_offset(j));
    path.for_each_buffer([&](unsigned char *m) { pattern.write(m, 0); });
    // In the transport's memory the payload is written for every message, as an application
    // producing it would; in the path's own buffers it stays from the line above.
    const bool write_payload = c.verify || path.writes_in_place();
    loop_result result;
    result.part = model::job_kind::send;
    result.thread_id = platform::current_thread_id();
    result.path = path.name();
    int32_t status = send_warmup(path, j, pattern, write_payload, result.warmup_messages);
    if (status != IPCB_OK) return loop_failure(out, status, "send", result);

    timing::send_schedule schedule(c, path.batch());
    const std::uint64_t stride = timing::clock_stride(c.size_bytes);
    const std::uint64_t corrupt = message_to_corrupt(c.verify, c.size_bytes, pattern_offset(j));
    auto usage_before = platform::sample_thread_usage();
    const std::int64_t start = now_ns();
    schedule.begin_window(start);
    std::int64_t now = start;
    std::uint64_t seq = 0, next_check = stride;
    std::uint32_t n = 0;
    for (;;) {
        const timing::send_step step = schedule.next(seq, now);
        if (step.what == timing::send_step::end) break;
        if (step.what == timing::send_step::wait) {
            wait_until(step.due_ns);
            now = now_ns();
            continue;
        }
        // One message a call and unpaced, the schedule answers the same until the next clock
        // read (or the count): those sends go back to back, without asking it again.
        const std::uint64_t goal =
            !paced && path.batch() == 1
                ? (c.count ? std::min(c.count, seq + stride) : std::max(next_check, seq + 1))
                : seq + step.count;
        do {
            // Paced, the slot, not the actual send time, goes into the message.
            status = path.send(
                static_cast<std::uint32_t>(std::min<std::uint64_t>(goal - seq, step.count)),
                [&](unsigned char *m, std::uint32_t i) {
                    write_header(m, seq + i);
                    if (write_payload) pattern.write(m, seq + i);
                    if (seq + i == corrupt) m[c.size_bytes - 1] ^= 1;
                    if (paced)
                        write_u64(m + timestamp_offset, static_cast<std::uint64_t>(step.due_ns));
                },
                &n, IPCB_WAIT_FOREVER);
            seq += n;
        } while (status == IPCB_OK && seq < goal);
        p.messages.store(seq, std::memory_order_relaxed);
        if (status != IPCB_OK) break;
        if (paced || (!c.count && seq >= next_check)) {  // a count needs no clock to end
            now = now_ns();
            next_check = seq + stride;
        }
    }
    result.end_ns = now_ns();
    result.first_ns = start;
    result.usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    result.messages_sent = seq;
    result.bytes_sent = seq * c.size_bytes;
    if (status != IPCB_OK) return loop_failure(out, status, "send", result);
    status = send_end_markers(path, j, pattern, write_payload, seq);
    if (status != IPCB_OK) return loop_failure(out, status, "send (end marker)", result);
    return result;
}

loop_result run_receiver(plugin::transport_endpoint &in, const job &j, stream_progress &p) {
    const model::case_settings &c = j.settings;
    const bool paced = c.rate_per_s > 0;
    receive_path path(in, c.size_bytes, paced ? 1 : static_cast<std::uint32_t>(c.batch),
                      c.zero_copy, j.stream);
    const payload_pattern pattern(c.size_bytes, pattern_offset(j));
    // Unreliable transports are polled, so a lost end marker cannot hang the run.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : timing::receiver_quiet_ns;
    receive_tally t;
    stats::latency_histogram one_way;  // paced runs: arrival minus scheduled send time
    platform::resource_usage usage_before;
    int32_t status = IPCB_OK;

    stats::latency_histogram *one_way_sink = paced ? &one_way : nullptr;
    auto on_message = [&](const unsigned char *m) {
        return t.count(m, j, pattern, one_way_sink,
                       [&] { usage_before = platform::sample_thread_usage(); });
    };
    while (t.ended_by.empty()) {
        status = path.receive(on_message, timeout);
        if (status == IPCB_E_TIMEOUT) {
            if (p.poll_control) p.poll_control();
            if (p.peer_sent.load(std::memory_order_acquire) >= 0) {
                t.ended_by = "sender-done";  // the sender finished and nothing came since
                t.end = t.last;
                break;
            }
            continue;
        }
        if (status == IPCB_E_CLOSED) {
            t.ended_by = "closed";
            t.end = t.received ? now_ns() : 0;
            break;
        }
        if (status != IPCB_OK) break;
        p.messages.store(t.received, std::memory_order_relaxed);
        p.expected_next.store(t.sequences.highest_plus_one(), std::memory_order_relaxed);
    }

    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    // The last batch too (the loop may leave on the marker or a close before storing it): the
    // final --interval line is read from these.
    p.messages.store(t.received, std::memory_order_relaxed);
    p.expected_next.store(t.sequences.highest_plus_one(), std::memory_order_relaxed);
    loop_result result = t.result(j, path.name());
    result.thread_id = platform::current_thread_id();
    result.usage = usage;
    if (paced) result.histogram = std::move(one_way);
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return loop_failure(in, status, "recv", result);
    return result;
}

}  // namespace ipcbench::timed
