// Ping-pong: where the harness times round trips.
#include <cstring>
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

namespace ipcbench::harness {

using platform::now_ns;

nlohmann::json run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                          const job &j, stream_progress &p) {
    send_path sender(out, j.size, 1, j.zero_copy);
    receive_path receiver(in, j.size, 1, j.zero_copy, j.stream);
    const payload_pattern pattern(j.size, header_bytes);
    sender.for_each_buffer([&](unsigned char *m) { pattern.write(m, 0); });
    const bool write_payload = j.verify || sender.writes_in_place();
    // A lost ping or pong on an unreliable transport must not hang the run.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 200'000'000;
    stats::latency_histogram histogram;
    std::uint64_t warm = 0, seq = 0, mismatched = 0, lost = 0, stale = 0, corrupted = 0;
    int32_t status = IPCB_OK;
    const char *failed = "send";
    std::uint64_t pong_header = 0;
    bool pong_intact = true;
    std::uint32_t n = 0;

    auto round_trip = [&](std::uint64_t header) -> int32_t {
        int32_t s = sender.send(
            1,
            [&](unsigned char *m, std::uint32_t) {
                write_header(m, header);
                if (write_payload) pattern.write(m, header & sequence_mask);
            },
            &n, IPCB_WAIT_FOREVER);
        if (s != IPCB_OK) {
            failed = "send";
            return s;
        }
        for (;;) {
            s = receiver.receive(
                [&](const unsigned char *m) {
                    pong_header = read_header(m);
                    pong_intact = !j.verify || pattern.matches(m, pong_header & sequence_mask);
                    return true;
                },
                timeout);
            if (s != IPCB_OK) {
                failed = "recv";
                return s;
            }
            // On an unreliable transport a pong that came after its timeout is stale: skip it.
            if (j.reliable || (pong_header & ~sequence_mask) != 0 ||
                (pong_header & sequence_mask) >= (header & sequence_mask))
                return s;
            ++stale;
        }
    };

    const std::int64_t warm_end = now_ns() + j.warmup_ns;
    while (j.warmup_ns > 0 && now_ns() < warm_end) {
        status = round_trip(flag_warmup | warm);
        if (status == IPCB_E_TIMEOUT) continue;
        if (status != IPCB_OK) return loop_failure(j.reliable ? out : in, status, failed, {});
        ++warm;
    }

    auto usage_before = platform::sample_thread_usage();
    const std::int64_t start = now_ns();
    const std::int64_t end = start + j.duration_ns;
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
            if ((pong_header & sequence_mask) != seq)
                ++mismatched;
            else if (!pong_intact)
                ++corrupted;
        }
        ++seq;
        p.messages.store(seq, std::memory_order_relaxed);
        if (j.count ? seq >= j.count : t >= end) break;
    }
    const std::int64_t stop = now_ns();
    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    nlohmann::json result = {{"round_trips", histogram.count()},
                             {"pings_sent", seq},
                             {"lost", lost},
                             {"mismatched", mismatched},
                             {"stale_pongs", stale},
                             {"corrupted", corrupted},
                             {"warmup_round_trips", warm},
                             {"first_ns", start},
                             {"end_ns", stop},
                             {"histogram", histogram.to_json()},
                             {"path", sender.name() + " -> " + receiver.name()},
                             {"usage", usage_to_json(usage)}};
    if (status != IPCB_OK && status != IPCB_E_TIMEOUT)
        return loop_failure(std::string(failed) == "send" ? out : in, status, failed, result);
    for (int i = 0; i < (j.reliable ? 1 : 3); ++i) {
        status = sender.send(
            1, [&](unsigned char *m, std::uint32_t) { write_header(m, flag_end | seq); }, &n,
            IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) return loop_failure(out, status, "send (end marker)", result);
    }
    return result;
}

nlohmann::json run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                          const job &j, stream_progress &p) {
    receive_path receiver(in, j.size, 1, j.zero_copy, j.stream);
    send_path sender(out, j.size, 1, j.zero_copy);
    // Echo straight from the received message, unless it is a taken message on the very endpoint
    // the echo goes out on: nothing may be sent there until it is released, so copy it out first.
    const bool direct = &in != &out || !receiver.reads_in_place();
    std::vector<unsigned char> held(direct ? 0 : j.size);
    std::uint64_t echoed = 0;
    // Unreliable transports: the pinger's end marker may be lost; give up after 2 s of silence.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 2'000'000'000;
    auto usage_before = platform::sample_thread_usage();
    std::int64_t start = now_ns();
    bool timed = false, ended = false;
    int32_t status = IPCB_OK, send_status = IPCB_OK;
    auto echo = [&](const unsigned char *m) { return sender.send_copy_of(m, IPCB_WAIT_FOREVER); };
    for (;;) {
        status = receiver.receive(
            [&](const unsigned char *m) {
                const std::uint64_t header = read_header(m);
                if (header & flag_end) {
                    ended = true;
                    return false;
                }
                if (!timed && !(header & flag_warmup)) {  // the ponger's figures exclude warm-up
                    timed = true;
                    usage_before = platform::sample_thread_usage();
                    start = now_ns();
                }
                if (direct)
                    send_status = echo(m);
                else
                    std::memcpy(held.data(), m, j.size);
                return true;
            },
            timeout);
        if (status != IPCB_OK || ended) break;
        if (!direct) send_status = echo(held.data());
        if (send_status != IPCB_OK) break;
        ++echoed;
        p.messages.store(echoed, std::memory_order_relaxed);
    }
    const std::int64_t stop = now_ns();
    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    nlohmann::json result = {
        {"echoed", echoed}, {"first_ns", start}, {"end_ns", stop}, {"usage", usage_to_json(usage)}};
    if (send_status != IPCB_OK) return loop_failure(out, send_status, "send", result);
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return loop_failure(in, status, "recv", result);
    return result;
}

}  // namespace ipcbench::harness
