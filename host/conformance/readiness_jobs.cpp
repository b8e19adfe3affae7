// The worker halves of the readiness check (ABI 1.2 event_source, try_send, try_recv): a
// would-block leaves nothing moved, the handle wakes a waiter for every kind of progress (no
// lost wake-up), and what try_send said went is exactly what arrives.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "conformance/check_verdict.hpp"
#include "conformance/conformance_jobs.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/readiness_poller.hpp"
#include "timed/message_header.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;
using platform::now_ns;

constexpr std::int64_t wake_bound_ns = 5'000'000'000;  // a wake-up later than this is lost
constexpr std::uint64_t end_marker = ~std::uint64_t{0};

// One endpoint's handle in a poller of its own, and the waits of the check on it.
class readiness_probe {
public:
    explicit readiness_probe(plugin::transport_endpoint &ep) : ep_(ep) {
        std::string why_not;
        source_ = ep.event_source(&why_not);
        if (!why_not.empty()) {
            refusal_ = why_not;
            return;
        }
        poller_.emplace();
        poller_->add(source_.handle, source_.recv_events | source_.send_events, 0);
    }
    const std::optional<std::string> &refusal() const { return refusal_; }

    // Calls `attempt` (a try call: IPCB_E_TIMEOUT is "would block") until it makes progress,
    // waiting on the handle between tries; returns its status, or IPCB_E_TIMEOUT when the
    // handle did not wake the waiter within the bound (a lost wake-up). *waited_ms: how long.
    template <class Attempt>
    int32_t until_progress(Attempt &&attempt, double *waited_ms = nullptr) {
        const std::int64_t start = now_ns(), deadline = start + wake_bound_ns;
        for (;;) {
            const int32_t s = attempt();
            if (s != IPCB_E_TIMEOUT) {
                if (waited_ms) *waited_ms = static_cast<double>(now_ns() - start) / 1e6;
                return s;
            }
            const std::int64_t left = deadline - now_ns();
            if (left <= 0) return IPCB_E_TIMEOUT;
            platform::readiness_poller::event e{};
            // Progress that only a retry after the bound finds was never signalled: lost.
            if (poller_->wait(&e, 1, left) == 0 && now_ns() >= deadline) return IPCB_E_TIMEOUT;
        }
    }

    // Sends all of `message`, waiting on the handle when the transport would block.
    int32_t send_all(const std::vector<unsigned char> &message, std::size_t from = 0) {
        std::size_t done = from;
        while (done < message.size()) {
            std::size_t n = 0;
            const int32_t s = until_progress(
                [&] { return ep_.try_send_raw(message.data() + done, message.size() - done, &n); });
            if (s != IPCB_OK) return s;
            done += n;
        }
        return IPCB_OK;
    }

    // Receives one whole message of message.size() bytes (a stream's parts reassembled).
    int32_t receive_one(std::vector<unsigned char> &message, double *first_wait_ms = nullptr) {
        std::size_t held = 0;
        while (held < message.size()) {
            std::size_t n = 0;
            const int32_t s = until_progress(
                [&] { return ep_.try_recv_raw(message.data() + held, message.size() - held, &n); },
                held == 0 ? first_wait_ms : nullptr);
            if (s != IPCB_OK) return s;
            held += n;
        }
        return IPCB_OK;
    }

private:
    plugin::transport_endpoint &ep_;
    ipcb_event_source source_{};
    std::optional<std::string> refusal_;
    std::optional<platform::readiness_poller> poller_;
};

json refused(const std::string &why) {
    json v = verdict(true, "event_source says it cannot: " + why);
    v["refused"] = true;
    return v;
}

}  // namespace

json readiness_send(plugin::transport_endpoint &out, const json &job) {
    const std::size_t size = job.at("size");
    const std::uint64_t max_bytes = job.at("max_bytes");
    readiness_probe probe(out);
    if (probe.refusal()) return refused(*probe.refusal());
    // Message 0 after the receiver has found the transport empty and waits on its handle.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (const int32_t s = probe.send_all(numbered_message(size, 0)); s != IPCB_OK)
        return verdict(false, fmt::format("sending message 0: {} ({})", ipcb_status_name(s),
                                          s == IPCB_E_TIMEOUT ? "the handle never said writable"
                                                              : out.last_error()));
    // Fill until try_send would block; the message it stopped in is finished after the wait.
    std::uint64_t seq = 1;
    std::size_t offset = 0;
    std::vector<unsigned char> m = numbered_message(size, seq);
    for (;;) {
        if (seq * size > max_bytes)
            return verdict(true, fmt::format("{} messages of {} B went without the transport "
                                             "saying would-block; nothing to wait for",
                                             seq, size));
        std::size_t n = 0;
        const int32_t s = out.try_send_raw(m.data() + offset, size - offset, &n);
        if (s == IPCB_E_TIMEOUT) {
            if (n != 0)
                return verdict(false, fmt::format("try_send said would-block with {} B "
                                                  "taken",
                                                  n));
            break;
        }
        if (s != IPCB_OK)
            return verdict(false, fmt::format("try_send while filling: {} ({})",
                                              ipcb_status_name(s), out.last_error()));
        offset += n;
        if (offset == size) {
            m = numbered_message(size, ++seq);
            offset = 0;
        }
    }
    const std::uint64_t full_after = seq;
    double wake_ms = 0;
    std::size_t n = 0;
    const int32_t woke = probe.until_progress(
        [&] { return out.try_send_raw(m.data() + offset, size - offset, &n); }, &wake_ms);
    if (woke == IPCB_E_TIMEOUT)
        return verdict(false, fmt::format("full after {} messages; the receiver drained, but the "
                                          "handle did not say writable within 5 s (a lost "
                                          "wake-up)",
                                          full_after));
    if (woke != IPCB_OK)
        return verdict(false, fmt::format("try_send after the wait: {} ({})",
                                          ipcb_status_name(woke), out.last_error()));
    offset += n;
    if (const int32_t s = probe.send_all(m, offset); s != IPCB_OK)
        return verdict(false, fmt::format("finishing message {}: {}", seq, ipcb_status_name(s)));
    if (const int32_t s = probe.send_all(numbered_message(size, end_marker)); s != IPCB_OK)
        return verdict(false, fmt::format("sending the end marker: {}", ipcb_status_name(s)));
    json v = verdict(true, fmt::format("would-block after {} messages of {} B; the handle said "
                                       "writable {:.0f} ms into the wait",
                                       full_after, size, wake_ms));
    v["sent"] = seq + 1;
    return v;
}

json readiness_receive(plugin::transport_endpoint &in, const json &job) {
    const std::size_t size = job.at("size");
    readiness_probe probe(in);
    if (probe.refusal()) return refused(*probe.refusal());
    std::vector<unsigned char> m(size);
    std::size_t n = 0;
    const int32_t empty = in.try_recv_raw(m.data(), size, &n);
    if (empty != IPCB_E_TIMEOUT || n != 0)
        return verdict(false, fmt::format("try_recv on an empty transport returned {} with {} B; "
                                          "expected IPCB_E_TIMEOUT (would block) and nothing",
                                          ipcb_status_name(empty), n));
    double first_ms = 0;
    int32_t s = probe.receive_one(m, &first_ms);
    if (s == IPCB_E_TIMEOUT)
        return verdict(false,
                       "message 0 was sent 300 ms in, but the handle did not say "
                       "readable within 5 s (a lost wake-up)");
    if (s != IPCB_OK || m != numbered_message(size, 0))
        return verdict(false, fmt::format("message 0: {} {}", ipcb_status_name(s),
                                          s == IPCB_OK ? "with other bytes" : in.last_error()));
    // Let the sender fill the transport, then drain it through the handle.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    std::uint64_t seq = 1;
    for (;;) {
        s = probe.receive_one(m);
        if (s == IPCB_E_TIMEOUT)
            return verdict(false, fmt::format("after message {} the handle did not say readable "
                                              "within 5 s while the sender had more (a lost "
                                              "wake-up)",
                                              seq));
        if (s != IPCB_OK)
            return verdict(false, fmt::format("draining at message {}: {} ({})", seq,
                                              ipcb_status_name(s), in.last_error()));
        if (timed::read_header(m.data()) == end_marker) break;
        if (m != numbered_message(size, seq))
            return verdict(false, fmt::format("message {} has other bytes (header {}): "
                                              "something was lost, repeated or torn",
                                              seq, timed::read_header(m.data())));
        ++seq;
    }
    json v = verdict(true, fmt::format("try_recv said would-block on the empty transport; the "
                                       "handle woke it {:.0f} ms in for message 0; {} messages "
                                       "drained byte for byte",
                                       first_ms, seq));
    v["received"] = seq;
    return v;
}

}  // namespace ipcbench::conformance
