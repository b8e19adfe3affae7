// The worker halves of the completion check (ABI 1.2 cq_open, submit_send, submit_recv,
// cq_wait, cq_close): every submission completes exactly once with its user_data, a receive
// with nothing to receive does not complete, and closing an endpoint with a receive outstanding
// returns promptly and cancels it.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "conformance/check_verdict.hpp"
#include "conformance/conformance_jobs.hpp"
#include "platform/monotonic_clock.hpp"
#include "plugin/completion_queue.hpp"
#include "timed/message_header.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;
using platform::now_ns;

constexpr std::int64_t completion_bound_ns = 5'000'000'000;

// Waits for exactly one completion; "" or what was wrong with it.
std::string one_completion(plugin::completion_queue &q, std::uint64_t user_data, std::uint32_t op,
                           ipcb_completion &c) {
    std::uint32_t n = 0;
    ipcb_completion got[4]{};
    const int32_t s = q.wait(got, 4, &n, completion_bound_ns);
    if (s == IPCB_E_TIMEOUT)
        return fmt::format("submission {} did not complete within 5 s", user_data);
    if (s != IPCB_OK) return fmt::format("cq_wait: {} ({})", ipcb_status_name(s), q.last_error());
    if (n != 1)
        return fmt::format("cq_wait returned {} completions for 1 outstanding submission", n);
    if (got[0].user_data != user_data || got[0].op != op)
        return fmt::format("a completion of user_data {} op {}, expected {} op {}",
                           got[0].user_data, got[0].op, user_data, op);
    c = got[0];
    return "";
}

}  // namespace

json completion_send(plugin::transport_endpoint &out, const json &job) {
    const std::size_t size = job.at("size");
    const std::uint64_t count = job.at("count");
    std::optional<plugin::completion_queue> queue;
    try {
        queue.emplace(out.transport(), 4);
    } catch (const plugin::transport_error &e) {
        if (e.status != IPCB_E_UNSUPPORTED) throw;
        return verdict(true, std::string("cq_open says this system cannot: ") + e.what());
    }
    plugin::completion_queue &q = *queue;
    for (std::uint64_t seq = 0; seq < count; ++seq) {
        const auto m = numbered_message(size, seq);
        const std::uint64_t tag = 1000 + seq;
        if (const int32_t s = q.submit_send(out, m.data(), m.size(), tag); s != IPCB_OK)
            return verdict(false, fmt::format("submit_send of message {}: {} ({})", seq,
                                              ipcb_status_name(s), q.last_error()));
        ipcb_completion c{};
        if (auto wrong = one_completion(q, tag, IPCB_OP_SEND, c); !wrong.empty())
            return verdict(false, wrong);
        if (c.status != IPCB_OK || c.len != size)
            return verdict(false, fmt::format("send {} completed with {} and {} of {} B", seq,
                                              ipcb_status_name(c.status), c.len, size));
    }
    return verdict(true, fmt::format("{} sends of {} B, one completion each", count, size));
}

json completion_receive(plugin::transport_endpoint &in, const json &job) {
    const std::size_t size = job.at("size");
    const std::uint64_t count = job.at("count");
    const bool stream = job.at("stream");
    std::optional<plugin::completion_queue> queue;
    try {
        queue.emplace(in.transport(), 4);
    } catch (const plugin::transport_error &e) {
        if (e.status != IPCB_E_UNSUPPORTED) throw;
        return verdict(true, std::string("cq_open says this system cannot: ") + e.what());
    }
    plugin::completion_queue &q = *queue;
    std::vector<unsigned char> m(size);
    std::uint64_t receives = 0;
    for (std::uint64_t seq = 0; seq < count; ++seq) {
        std::size_t held = 0;
        while (held < size) {
            const std::uint64_t tag = 5000 + receives++;
            if (const int32_t s = q.submit_recv(in, m.data() + held, size - held, tag);
                s != IPCB_OK)
                return verdict(false, fmt::format("submit_recv: {} ({})", ipcb_status_name(s),
                                                  q.last_error()));
            ipcb_completion c{};
            if (auto wrong = one_completion(q, tag, IPCB_OP_RECV, c); !wrong.empty())
                return verdict(false, wrong);
            if (c.status != IPCB_OK || c.len == 0 || c.len > size - held ||
                (!stream && c.len != size))
                return verdict(false,
                               fmt::format("receive for message {} completed with {} "
                                           "and {} B for a {}-byte buffer",
                                           seq, ipcb_status_name(c.status), c.len, size - held));
            held += c.len;
        }
        if (m != numbered_message(size, seq))
            return verdict(false, fmt::format("message {} has other bytes", seq));
    }
    // Nothing more comes: a receive must stay outstanding, then closing cancels it.
    std::vector<unsigned char> spare(size);
    const std::uint64_t tag = 9999;
    if (const int32_t s = q.submit_recv(in, spare.data(), size, tag); s != IPCB_OK)
        return verdict(false, fmt::format("the last submit_recv: {}", ipcb_status_name(s)));
    std::uint32_t n = 0;
    ipcb_completion early{};
    const int32_t idle = q.wait(&early, 1, &n, 200'000'000);
    if (idle != IPCB_E_TIMEOUT || n != 0)
        return verdict(false, fmt::format("a receive with nothing sent completed ({}, status "
                                          "{}) instead of staying outstanding",
                                          ipcb_status_name(idle), ipcb_status_name(early.status)));
    const std::int64_t before = now_ns();
    in.close_now();
    const double close_ms = (now_ns() - before) / 1e6;
    if (close_ms > 5000)
        return verdict(false,
                       fmt::format("close with a receive outstanding took {:.0f} ms", close_ms));
    ipcb_completion cancelled{};
    n = 0;
    const int32_t after = q.wait(&cancelled, 1, &n, 1'000'000'000);
    std::string fate = "dropped";
    if (after == IPCB_OK && n == 1) {
        if (cancelled.user_data != tag || cancelled.status != IPCB_E_CLOSED)
            return verdict(
                false, fmt::format("after close the outstanding receive completed "
                                   "with user_data {} and {}, expected {} and "
                                   "IPCB_E_CLOSED",
                                   cancelled.user_data, ipcb_status_name(cancelled.status), tag));
        fate = "reaped as IPCB_E_CLOSED";
    }
    return verdict(true, fmt::format("{} messages from {} receives, one completion each; an idle "
                                     "receive stayed outstanding; close with it outstanding took "
                                     "{:.1f} ms and the receive was {}",
                                     count, receives, close_ms, fate));
}

}  // namespace ipcbench::conformance
