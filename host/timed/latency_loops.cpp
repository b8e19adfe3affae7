// Ping-pong: where the harness times round trips.
#include <cstring>
#include <vector>

#include "platform/monotonic_clock.hpp"
#include "platform/thread_placement.hpp"
#include "stats/latency_histogram.hpp"
#include "timed/loop_failure.hpp"
#include "timed/message_header.hpp"
#include "timed/payload_pattern.hpp"
#include "timed/receive_path.hpp"
#include "timed/send_path.hpp"
#include "timed/timed_loops.hpp"
#include "timed/timing_rules.hpp"

namespace ipcbench::timed {

using platform::now_ns;

namespace {

// One ping and its pong, on the pinger's two paths. The pong's header and whether its payload
// was intact are kept for the timed loop to check.
class round_tripper {
public:
    round_tripper(plugin::transport_endpoint &out, plugin::transport_endpoint &in, const job &j)
        : sender_(out, j.settings.size_bytes, 1, j.settings.zero_copy),
          receiver_(in, j.settings.size_bytes, 1, j.settings.zero_copy, j.stream),
          pattern_(j.settings.size_bytes, header_bytes),
          verify_(j.settings.verify),
          reliable_(j.reliable),
          // A lost ping or pong on an unreliable transport must not hang the run.
          timeout_(j.reliable ? IPCB_WAIT_FOREVER : timing::lost_ping_ns) {
        sender_.for_each_buffer([&](unsigned char *m) { pattern_.write(m, 0); });
        write_payload_ = verify_ || sender_.writes_in_place();
    }

    int32_t operator()(std::uint64_t header) {
        int32_t s = sender_.send_one(
            [&](unsigned char *m) {
                write_header(m, header);
                if (write_payload_) pattern_.write(m, header & sequence_mask);
            },
            IPCB_WAIT_FOREVER);
        if (s != IPCB_OK) {
            failed = "send";
            return s;
        }
        for (;;) {
            s = receiver_.receive(
                [&](const unsigned char *m) {
                    const std::uint64_t pong_header = read_header(m);
                    verdict = timing::judge_pong(header, pong_header, reliable_);
                    pong_intact = !verify_ || pattern_.matches(m, pong_header & sequence_mask);
                    return true;
                },
                timeout_);
            if (s != IPCB_OK) {
                failed = "recv";
                return s;
            }
            if (verdict != timing::pong_verdict::stale) return s;
            ++stale;
        }
    }

    int32_t send_end_marker(std::uint64_t seq) {
        return sender_.send_one([&](unsigned char *m) { write_header(m, flag_end | seq); },
                                IPCB_WAIT_FOREVER);
    }
    std::string path() const { return sender_.name() + " -> " + receiver_.name(); }

    const char *failed = "send";
    timing::pong_verdict verdict = timing::pong_verdict::matched;
    bool pong_intact = true;
    std::uint64_t stale = 0;

private:
    send_path sender_;
    receive_path receiver_;
    const payload_pattern pattern_;
    const bool verify_, reliable_;
    const std::int64_t timeout_;
    bool write_payload_ = false;
};

}  // namespace

loop_result run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                       const job &j, stream_progress &p) {
    const model::case_settings &c = j.settings;
    round_tripper round_trip(out, in, j);
    stats::latency_histogram histogram;
    std::uint64_t warm = 0, seq = 0, mismatched = 0, lost = 0, corrupted = 0;
    int32_t status = IPCB_OK;
    const std::int64_t warmup_ns = model::to_ns(c.warmup_s);
    const std::int64_t warm_end = now_ns() + warmup_ns;
    loop_result result;
    result.part = model::job_kind::ping;
    result.thread_id = platform::current_thread_id();
    result.path = round_trip.path();
    while (warmup_ns > 0 && now_ns() < warm_end) {
        status = round_trip(flag_warmup | warm);
        if (status == IPCB_E_TIMEOUT) continue;
        if (status != IPCB_OK)
            return loop_failure(j.reliable ? out : in, status, round_trip.failed, result);
        ++warm;
    }

    auto usage_before = platform::sample_thread_usage();
    const std::int64_t start = now_ns();
    const std::int64_t end = start + model::to_ns(c.duration_s);
    std::int64_t t = start;
    for (;;) {
        // One clock read per round trip: the end of one is the start of the next.
        const std::int64_t t0 = t;
        status = round_trip(seq);
        t = now_ns();
        if (status == IPCB_E_TIMEOUT) {
            ++lost;
        } else if (status != IPCB_OK) {
            break;
        } else {
            histogram.record(static_cast<std::uint64_t>(t - t0));
            if (round_trip.verdict == timing::pong_verdict::mismatched)
                ++mismatched;
            else if (!round_trip.pong_intact)
                ++corrupted;
        }
        ++seq;
        p.messages.store(seq, std::memory_order_relaxed);
        if (timing::pings_done(c, seq, t, end)) break;
    }
    result.end_ns = now_ns();
    result.first_ns = start;
    result.usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    result.round_trips = histogram.count();
    result.pings_sent = seq;
    result.lost = lost;
    result.mismatched = mismatched;
    result.stale_pongs = round_trip.stale;
    result.corrupted = corrupted;
    result.warmup_messages = warm;
    result.histogram = std::move(histogram);
    if (status != IPCB_OK && status != IPCB_E_TIMEOUT)
        return loop_failure(std::string(round_trip.failed) == "send" ? out : in, status,
                            round_trip.failed, result);
    for (int i = 0; i < timing::end_markers(j.reliable); ++i) {
        status = round_trip.send_end_marker(seq);
        if (status != IPCB_OK) return loop_failure(out, status, "send (end marker)", result);
    }
    return result;
}

loop_result run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                       const job &j, stream_progress &p) {
    const std::uint64_t size = j.settings.size_bytes;
    receive_path receiver(in, size, 1, j.settings.zero_copy, j.stream);
    send_path sender(out, size, 1, j.settings.zero_copy);
    // Echo straight from the received message, unless it is a taken message on the very endpoint
    // the echo goes out on: nothing may be sent there until it is released, so copy it out first.
    const bool direct = &in != &out || !receiver.reads_in_place();
    std::vector<unsigned char> held(direct ? 0 : size);
    std::uint64_t echoed = 0;
    // Unreliable transports: the pinger's end markers may be lost; give up after a silence.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : timing::ponger_silence_ns;
    auto usage_before = platform::sample_thread_usage();
    std::int64_t start = now_ns();
    bool timed = false, ended = false;
    int32_t status = IPCB_OK, send_status = IPCB_OK;
    auto echo = [&](const unsigned char *m) { return sender.send_copy_of(m, IPCB_WAIT_FOREVER); };
    for (;;) {
        status = receiver.receive(
            [&](const unsigned char *m) {
                const timing::pong_step step = timing::ponger_step(read_header(m), timed);
                if (step == timing::pong_step::end) {
                    ended = true;
                    return false;
                }
                if (step == timing::pong_step::echo_first_timed) {
                    timed = true;
                    usage_before = platform::sample_thread_usage();
                    start = now_ns();
                }
                if (direct)
                    send_status = echo(m);
                else
                    std::memcpy(held.data(), m, size);
                return true;
            },
            timeout);
        if (status != IPCB_OK || ended) break;
        if (!direct) send_status = echo(held.data());
        if (send_status != IPCB_OK) break;
        ++echoed;
        p.messages.store(echoed, std::memory_order_relaxed);
    }
    loop_result result;
    result.part = model::job_kind::pong;
    result.end_ns = now_ns();
    result.first_ns = start;
    result.usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    result.thread_id = platform::current_thread_id();
    result.echoed = echoed;
    result.path = receiver.name() + " -> " + sender.name();
    if (send_status != IPCB_OK) return loop_failure(out, send_status, "send", result);
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return loop_failure(in, status, "recv", result);
    return result;
}

}  // namespace ipcbench::timed
