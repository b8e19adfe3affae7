// The worker halves of the send-timeout check: the sender fills the transport while nobody
// reads, until a send with a timeout must time out; then the receiver drains what went.
#include <fmt/format.h>

#include <vector>

#include "conformance/check_verdict.hpp"
#include "conformance/conformance_jobs.hpp"
#include "platform/monotonic_clock.hpp"

namespace ipcbench::conformance {

using nlohmann::json;
using platform::now_ns;

json send_timeout_fill(plugin::transport_endpoint &out, const json &job) {
    const std::size_t size = job.at("size");
    const std::int64_t timeout = job.at("timeout_ns");
    const std::uint64_t max_bytes = job.at("max_bytes");
    const double max_s = job.at("max_seconds");
    const bool stream = job.at("stream");
    const std::vector<unsigned char> message(size, 0x5a);
    const double asked_ms = timeout / 1e6;
    const std::int64_t start = now_ns();
    std::uint64_t sent = 0;
    while (sent * size < max_bytes && (now_ns() - start) / 1e9 < max_s) {
        const std::int64_t before = now_ns();
        const int32_t s = out.send_raw(message.data(), size, timeout);
        const double waited_ms = (now_ns() - before) / 1e6;
        if (s == IPCB_OK) {
            ++sent;
            continue;
        }
        json v;
        if (s == IPCB_E_TIMEOUT && (waited_ms < asked_ms * 0.9 || waited_ms > asked_ms + 1000))
            v = verdict(false, fmt::format("with {} messages of {} B unread, send({:.0f} ms) timed "
                                           "out after {:.1f} ms",
                                           sent, size, asked_ms, waited_ms));
        else if (s == IPCB_E_TIMEOUT)
            v = verdict(true, fmt::format("full after {} messages of {} B unread; send({:.0f} ms) "
                                          "returned IPCB_E_TIMEOUT after {:.1f} ms",
                                          sent, size, asked_ms, waited_ms));
        else if (s == IPCB_E_SYSTEM && stream)  // transport.h: part of the message went
            v = verdict(true, fmt::format("full after {} messages of {} B unread; send({:.0f} ms) "
                                          "timed out after part of a message and said "
                                          "IPCB_E_SYSTEM after {:.1f} ms",
                                          sent, size, asked_ms, waited_ms));
        else
            v = verdict(false, fmt::format("with {} messages of {} B unread, send({:.0f} ms) "
                                           "returned {} after {:.1f} ms ({}), expected "
                                           "IPCB_E_TIMEOUT",
                                           sent, size, asked_ms, ipcb_status_name(s), waited_ms,
                                           out.last_error()));
        v["sent"] = sent;
        v["partial"] = s == IPCB_E_SYSTEM;
        return v;
    }
    json v = verdict(true, fmt::format("{} messages of {} B went unread without filling the "
                                       "transport; its send timeout was not reached",
                                       sent, size));
    v["sent"] = sent;
    v["partial"] = false;
    v["never_full"] = true;
    return v;
}

json drain_count(plugin::transport_endpoint &in, const json &job) {
    const std::size_t size = job.at("size");
    const bool stream = job.at("stream");
    const std::int64_t quiet = job.at("quiet_ns");
    const double max_s = job.at("max_seconds");
    std::vector<unsigned char> buffer(stream ? 65536 : size + 1);
    std::uint64_t messages = 0, bytes = 0;
    const std::int64_t start = now_ns();
    while ((now_ns() - start) / 1e9 < max_s) {
        std::size_t n = 0;
        const int32_t s = in.recv_raw(buffer.data(), buffer.size(), &n, quiet);
        if (s == IPCB_E_TIMEOUT) break;  // drained
        if (s != IPCB_OK)
            return verdict(false, fmt::format("draining after the send timeout: recv returned {} "
                                              "after {} messages ({})",
                                              ipcb_status_name(s), messages, in.last_error()));
        if (!stream && n != size)
            return verdict(false, fmt::format("draining after the send timeout: message {} has "
                                              "{} B, expected {}",
                                              messages, n, size));
        ++messages;
        bytes += n;
    }
    json v = verdict(true, "drained");
    v["messages"] = stream ? bytes / size : messages;
    v["bytes"] = bytes;
    return v;
}

}  // namespace ipcbench::conformance
