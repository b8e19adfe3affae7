// Ping-pong: where the harness times round trips.
#include <vector>

#include "harness/loop_failure.hpp"
#include "harness/message_header.hpp"
#include "harness/message_io.hpp"
#include "harness/payload_pattern.hpp"
#include "harness/timed_loops.hpp"
#include "harness/usage_json.hpp"
#include "platform/monotonic_clock.hpp"
#include "stats/latency_histogram.hpp"

namespace ipcbench::harness {

using platform::now_ns;

nlohmann::json run_pinger(plugin::transport_endpoint &out, plugin::transport_endpoint &in,
                          const job &j, stream_progress &p) {
    std::vector<unsigned char> ping(j.size), pong(j.size);
    const payload_pattern pattern(j.size, header_bytes);
    pattern.write(ping.data(), 0);
    // A lost ping or pong on an unreliable transport must not hang the run.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 200'000'000;
    stats::latency_histogram histogram;
    std::uint64_t warm = 0, seq = 0, mismatched = 0, lost = 0, stale = 0, corrupted = 0;
    int32_t status = IPCB_OK;
    const char *failed = "send";

    auto round_trip = [&](std::uint64_t header) -> int32_t {
        write_header(ping.data(), header);
        if (j.verify) pattern.write(ping.data(), header & sequence_mask);
        int32_t s = out.send_raw(ping.data(), j.size, IPCB_WAIT_FOREVER);
        if (s != IPCB_OK) {
            failed = "send";
            return s;
        }
        for (;;) {
            s = receive_message(in, j.stream, pong.data(), j.size, timeout);
            if (s != IPCB_OK) {
                failed = "recv";
                return s;
            }
            // On an unreliable transport a pong that came after its timeout is stale: skip it.
            const std::uint64_t got = read_header(pong.data());
            if (j.reliable || (got & ~sequence_mask) != 0 ||
                (got & sequence_mask) >= (header & sequence_mask))
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
            if ((read_header(pong.data()) & sequence_mask) != seq)
                ++mismatched;
            else if (j.verify && !pattern.matches(pong.data(), seq))
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
                             {"usage", usage_to_json(usage)}};
    if (status != IPCB_OK && status != IPCB_E_TIMEOUT)
        return loop_failure(std::string(failed) == "send" ? out : in, status, failed, result);
    write_header(ping.data(), flag_end | seq);
    for (int i = 0; i < (j.reliable ? 1 : 3); ++i) {
        status = out.send_raw(ping.data(), j.size, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) return loop_failure(out, status, "send (end marker)", result);
    }
    return result;
}

nlohmann::json run_ponger(plugin::transport_endpoint &in, plugin::transport_endpoint &out,
                          const job &j, stream_progress &p) {
    std::vector<unsigned char> buf(j.size);
    std::uint64_t echoed = 0;
    // Unreliable transports: the pinger's end marker may be lost; give up after 2 s of silence.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 2'000'000'000;
    auto usage_before = platform::sample_thread_usage();
    std::int64_t start = now_ns();
    bool timed = false;
    int32_t status = IPCB_OK;
    const char *failed = "recv";
    for (;;) {
        status = receive_message(in, j.stream, buf.data(), j.size, timeout);
        if (status != IPCB_OK) break;
        const std::uint64_t header = read_header(buf.data());
        if (header & flag_end) break;
        if (!timed && !(header & flag_warmup)) {  // the ponger's figures exclude the warm-up
            timed = true;
            usage_before = platform::sample_thread_usage();
            start = now_ns();
        }
        status = out.send_raw(buf.data(), j.size, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) {
            failed = "send";
            break;
        }
        ++echoed;
        p.messages.store(echoed, std::memory_order_relaxed);
    }
    const std::int64_t stop = now_ns();
    auto usage = platform::usage_between(usage_before, platform::sample_thread_usage());
    nlohmann::json result = {{"echoed", echoed},
                             {"first_ns", start},
                             {"end_ns", stop},
                             {"usage", usage_to_json(usage)}};
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return loop_failure(std::string(failed) == "send" ? out : in, status, failed, result);
    return result;
}

}  // namespace ipcbench::harness
