// One-way streaming: where the harness times throughput.
#include <ctime>
#include <vector>

#include "harness/loop_failure.hpp"
#include "harness/message_header.hpp"
#include "harness/payload_pattern.hpp"
#include "harness/receive_path.hpp"
#include "harness/send_path.hpp"
#include "harness/timed_loops.hpp"
#include "harness/usage_json.hpp"
#include "platform/monotonic_clock.hpp"
#include "stats/latency_histogram.hpp"
#include "stats/sequence_tracker.hpp"

namespace ipcbench::harness {
namespace {

using platform::now_ns;

// Reading the clock costs ~20 ns; small unpaced messages check it every few sends only.
std::uint64_t clock_stride(std::size_t size) {
    return size >= 4096 ? 1 : 16;
}

std::size_t pattern_offset(const job &j) {
    return j.rate > 0 ? timestamp_offset + 8 : header_bytes;
}

// Sleeps until `when` (CLOCK_MONOTONIC ns): the kernel for the bulk, a spin for the last 50 us,
// so the pacing error stays well below a microsecond when the CPU is free.
void wait_until(std::int64_t when) {
    std::int64_t left = when - now_ns();
    if (left > 100'000) {
        std::int64_t wake = when - 50'000;
        timespec ts{static_cast<time_t>(wake / 1'000'000'000),
                    static_cast<long>(wake % 1'000'000'000)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    }
    while (now_ns() < when) {
    }
}

}  // namespace

nlohmann::json run_sender(plugin::transport_endpoint &out, const job &j, stream_progress &p) {
    const bool paced = j.rate > 0;
    send_path path(out, j.size, paced ? 1 : static_cast<std::uint32_t>(j.batch), j.zero_copy);
    const payload_pattern pattern(j.size, pattern_offset(j));
    path.for_each_buffer([&](unsigned char *m) { pattern.write(m, 0); });
    // In the transport's memory the payload is written for every message, as an application
    // producing it would; in the path's own buffers it stays from the line above.
    const bool write_payload = j.verify || path.writes_in_place();
    const std::uint64_t stride = clock_stride(j.size);
    std::uint64_t warm = 0;
    std::uint32_t n = 0;
    if (j.warmup_ns > 0) {
        const std::int64_t warm_end = now_ns() + j.warmup_ns;
        std::uint64_t next_check = stride;
        for (;;) {
            int32_t status = path.send(
                path.batch(),
                [&](unsigned char *m, std::uint32_t i) {
                    write_header(m, flag_warmup | (warm + i));
                    if (write_payload) pattern.write(m, warm + i);
                },
                &n, IPCB_WAIT_FOREVER);
            warm += n;
            if (status != IPCB_OK)
                return loop_failure(out, status, "send", {{"warmup_messages", warm}});
            if (warm >= next_check) {
                if (now_ns() >= warm_end) break;
                next_check = warm + stride;
            }
        }
    }

    const double period_ns = paced ? 1e9 / j.rate : 0;
    auto usage_before = platform::sample_thread_usage();
    const std::int64_t start = now_ns();
    const std::int64_t end = start + j.duration_ns;
    std::uint64_t seq = 0, next_check = stride;
    int32_t status = IPCB_OK;
    for (;;) {
        std::uint32_t want = path.batch();
        if (j.count && j.count - seq < want) want = static_cast<std::uint32_t>(j.count - seq);
        std::int64_t scheduled = 0;
        if (paced) {
            // The schedule, not the actual send time, goes into the message: a stall delays
            // every later message and the receiver sees it (no coordinated omission).
            scheduled = start + static_cast<std::int64_t>(static_cast<double>(seq) * period_ns);
            if (!j.count && scheduled >= end) break;  // the next slot is past the window
            wait_until(scheduled);
        }
        status = path.send(
            want,
            [&](unsigned char *m, std::uint32_t i) {
                write_header(m, seq + i);
                if (write_payload) pattern.write(m, seq + i);
                if (paced) write_u64(m + timestamp_offset, static_cast<std::uint64_t>(scheduled));
            },
            &n, IPCB_WAIT_FOREVER);
        seq += n;
        if (status != IPCB_OK) break;
        p.messages.store(seq, std::memory_order_relaxed);
        if (j.count) {
            if (seq >= j.count) break;
        } else if (paced || seq >= next_check) {
            if (now_ns() >= end) break;
            next_check = seq + stride;
        }
    }
    const std::int64_t stop = now_ns();
    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    nlohmann::json result = {{"messages_sent", seq}, {"warmup_messages", warm},
                             {"first_ns", start},    {"end_ns", stop},
                             {"path", path.name()},  {"usage", usage_to_json(usage)}};
    if (status != IPCB_OK) return loop_failure(out, status, "send", result);

    // The end marker. An unreliable transport may drop it, so send a few; the receiver also
    // learns the sent count through the control channel.
    for (int i = 0; i < (j.reliable ? 1 : 3); ++i) {
        status = path.send(
            1,
            [&](unsigned char *m, std::uint32_t) {
                write_header(m, flag_end | seq);
                if (write_payload) pattern.write(m, seq);
            },
            &n, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) return loop_failure(out, status, "send (end marker)", result);
    }
    return result;
}

nlohmann::json run_receiver(plugin::transport_endpoint &in, const job &j, stream_progress &p) {
    receive_path path(in, j.size, j.rate > 0 ? 1 : static_cast<std::uint32_t>(j.batch), j.zero_copy,
                      j.stream);
    const payload_pattern pattern(j.size, pattern_offset(j));
    const bool paced = j.rate > 0;
    // Unreliable transports are polled, so a lost end marker cannot hang the run.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 20'000'000;
    std::uint64_t received = 0, warm = 0, corrupted = 0;
    stats::sequence_tracker sequences;
    stats::latency_histogram one_way;  // paced runs: arrival minus scheduled send time
    std::int64_t first = 0, last = 0, end = 0;
    platform::resource_usage usage_before;
    std::string ended_by;
    int32_t status = IPCB_OK;

    auto on_message = [&](const unsigned char *m) {
        const std::uint64_t header = read_header(m);
        if (header & flag_end) {
            end = now_ns();
            ended_by = "end-marker";
            return false;
        }
        if (header & flag_warmup) {
            ++warm;
            return true;
        }
        if (received == 0) {
            first = now_ns();
            usage_before = platform::sample_thread_usage();
        }
        if (!j.reliable || paced) last = now_ns();
        ++received;
        const std::uint64_t seq = header & sequence_mask;
        if (sequences.record(seq) && j.verify && !pattern.matches(m, seq)) ++corrupted;
        if (paced) {
            const auto scheduled = static_cast<std::int64_t>(read_u64(m + timestamp_offset));
            one_way.record(static_cast<std::uint64_t>(last > scheduled ? last - scheduled : 0));
        }
        return true;
    };
    while (ended_by.empty()) {
        status = path.receive(on_message, timeout);
        if (status == IPCB_E_TIMEOUT) {
            if (p.poll_control) p.poll_control();
            if (p.peer_sent.load(std::memory_order_acquire) >= 0) {
                ended_by = "sender-done";  // the sender finished and nothing came since
                end = last;
                break;
            }
            continue;
        }
        if (status == IPCB_E_CLOSED) {
            ended_by = "closed";
            end = received ? now_ns() : 0;
            break;
        }
        if (status != IPCB_OK) break;
        p.messages.store(received, std::memory_order_relaxed);
        p.expected_next.store(sequences.highest_plus_one(), std::memory_order_relaxed);
    }

    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    // The last batch too (the loop may leave on the marker or a close before storing it): the
    // final --interval line is read from these.
    p.messages.store(received, std::memory_order_relaxed);
    p.expected_next.store(sequences.highest_plus_one(), std::memory_order_relaxed);
    // The window runs from the arrival of the first timed message to the end marker, which covers
    // `received` message intervals; without a marker it ends at the last arrival, covering one
    // fewer.
    const std::uint64_t counted =
        ended_by == "end-marker" || ended_by == "closed" ? received : (received ? received - 1 : 0);
    nlohmann::json result = {{"messages_received", received},
                             {"warmup_messages", warm},
                             {"duplicates", sequences.duplicates()},
                             {"out_of_order", sequences.out_of_order()},
                             {"beyond_window", sequences.beyond_window()},
                             {"corrupted", corrupted},
                             {"first_ns", first},
                             {"end_ns", received ? end : first},
                             {"counted_messages", counted},
                             {"ended_by", ended_by},
                             {"path", path.name()},
                             {"usage", usage_to_json(usage)}};
    if (paced) result["one_way_histogram"] = one_way.to_json();
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return loop_failure(in, status, "recv", result);
    return result;
}

}  // namespace ipcbench::harness
