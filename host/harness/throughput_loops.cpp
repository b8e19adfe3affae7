// One-way streaming: where the harness times throughput.
#include <vector>

#include "harness/message_header.hpp"
#include "harness/message_io.hpp"
#include "harness/timed_loops.hpp"
#include "harness/usage_json.hpp"
#include "platform/monotonic_clock.hpp"
#include "stats/sequence_tracker.hpp"

namespace ipcbench::harness {
namespace {

using platform::now_ns;

std::vector<unsigned char> pattern_buffer(std::size_t size) {
    std::vector<unsigned char> buf(size);
    for (std::size_t i = 0; i < size; ++i) buf[i] = static_cast<unsigned char>(i * 131 + 7);
    return buf;
}

// Reading the clock costs ~20 ns; small messages check it every few sends only.
std::uint64_t clock_stride(std::size_t size) { return size >= 4096 ? 1 : 16; }

nlohmann::json failure(plugin::transport_endpoint &ep, int32_t status, const char *what,
                       nlohmann::json partial) {
    const std::string name = ipcb_status_name(status);
    partial["error"] = ep.transport().id + " " + what + " failed (" +
                       (name == "IPCB_E_UNKNOWN"
                            ? "unknown status " + std::to_string(status) +
                                  ": the plugin broke its contract)"
                            : name + "): " + ep.last_error());
    partial["status"] = status;
    return partial;
}

}  // namespace

nlohmann::json run_sender(plugin::transport_endpoint &out, const job &j) {
    auto buf = pattern_buffer(j.size);
    const std::uint64_t stride = clock_stride(j.size);
    std::uint64_t warm = 0;
    if (j.warmup_ns > 0) {
        const std::int64_t warm_end = now_ns() + j.warmup_ns;
        for (;;) {
            write_header(buf.data(), flag_warmup | warm);
            int32_t status = out.send_raw(buf.data(), j.size, IPCB_WAIT_FOREVER);
            if (status != IPCB_OK)
                return failure(out, status, "send", {{"warmup_messages", warm}});
            ++warm;
            if (warm % stride == 0 && now_ns() >= warm_end) break;
        }
    }

    auto usage_before = platform::sample_resource_usage();
    const std::int64_t start = now_ns();
    const std::int64_t end = start + j.duration_ns;
    std::uint64_t seq = 0;
    int32_t status = IPCB_OK;
    for (;;) {
        write_header(buf.data(), seq);
        status = out.send_raw(buf.data(), j.size, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) break;
        ++seq;
        if (j.count ? seq >= j.count : (seq % stride == 0 && now_ns() >= end)) break;
    }
    const std::int64_t stop = now_ns();
    auto usage = platform::usage_between(usage_before, platform::sample_resource_usage());
    nlohmann::json result = {{"messages_sent", seq},
                             {"warmup_messages", warm},
                             {"elapsed_ns", stop - start},
                             {"usage", usage_to_json(usage, stop - start)}};
    if (status != IPCB_OK) return failure(out, status, "send", result);

    // The end marker. An unreliable transport may drop it, so send a few; the receiver also
    // learns the sent count through the control channel.
    write_header(buf.data(), flag_end | seq);
    for (int i = 0; i < (j.reliable ? 1 : 3); ++i) {
        status = out.send_raw(buf.data(), j.size, IPCB_WAIT_FOREVER);
        if (status != IPCB_OK) return failure(out, status, "send (end marker)", result);
    }
    return result;
}

nlohmann::json run_receiver(plugin::transport_endpoint &in, const job &j,
                            const std::function<std::int64_t()> &sender_done) {
    std::vector<unsigned char> buf(j.size);
    // Unreliable transports are polled, so a lost end marker cannot hang the run.
    const std::int64_t timeout = j.reliable ? IPCB_WAIT_FOREVER : 20'000'000;
    std::uint64_t received = 0, warm = 0;
    stats::sequence_tracker sequences;
    std::int64_t first = 0, last = 0, end = 0;
    std::int64_t sent = -1;
    platform::resource_usage usage_before;
    std::string ended_by;
    int32_t status = IPCB_OK;

    for (;;) {
        status = receive_message(in, j.stream, buf.data(), j.size, timeout);
        if (status == IPCB_E_TIMEOUT) {
            if (sent < 0) sent = sender_done();
            if (sent >= 0) {  // the sender is done and nothing came for a whole timeout
                ended_by = "sender-done";
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
        const std::uint64_t header = read_header(buf.data());
        if (header & flag_end) {
            end = now_ns();
            ended_by = "end-marker";
            break;
        }
        if (header & flag_warmup) {
            ++warm;
            continue;
        }
        if (received == 0) {
            first = now_ns();
            usage_before = platform::sample_resource_usage();
        }
        if (!j.reliable) last = now_ns();
        ++received;
        sequences.record(header & sequence_mask);
    }

    auto usage = platform::usage_between(usage_before, platform::sample_resource_usage());
    // The window runs from the arrival of the first timed message to the end marker, which covers
    // `received` message intervals; without a marker it ends at the last arrival, covering one
    // fewer.
    const std::int64_t window = received ? end - first : 0;
    const std::uint64_t counted =
        ended_by == "end-marker" || ended_by == "closed" ? received : (received ? received - 1 : 0);
    nlohmann::json result = {{"messages_received", received},
                             {"warmup_messages", warm},
                             {"duplicates", sequences.duplicates()},
                             {"out_of_order", sequences.out_of_order()},
                             {"window_ns", window},
                             {"counted_messages", counted},
                             {"ended_by", ended_by},
                             {"usage", usage_to_json(usage, window)}};
    if (status != IPCB_OK && status != IPCB_E_CLOSED && status != IPCB_E_TIMEOUT)
        return failure(in, status, "recv", result);
    return result;
}

}  // namespace ipcbench::harness
