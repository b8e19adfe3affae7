// The completion engine (--io uring, iocp): where the harness times messages when few threads
// drive many streams through a transport's completion queue (ABI 1.2 cq_open, submit_send,
// submit_recv, cq_wait).
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "platform/monotonic_clock.hpp"
#include "plugin/completion_queue.hpp"
#include "timed/event_engines.hpp"
#include "timed/message_header.hpp"
#include "timed/stream_engine.hpp"
#include "timed/timing_rules.hpp"

namespace ipcbench::timed {
namespace {

using model::job;
using model::job_kind;
using model::loop_result;
using platform::now_ns;

// One thread's share: one queue, at most one send and one receive submitted per stream. A
// stream's turn submits what is due; its completions move it on. user_data is the stream's
// index times two, plus one for a receive.
class completion_engine final : public stream_engine {
public:
    completion_engine(std::vector<stream_task *> tasks, const job &j,
                      const endpoint_lookup &endpoint_for)
        : stream_engine(std::move(tasks), j, endpoint_for) {
        completions_.resize(256);
    }

private:
    std::string path_name(job_kind part) const override {
        switch (part) {
            case job_kind::send: return batch_name("submit_send");
            case job_kind::receive: return batch_name("submit_recv");
            case job_kind::ping: return "submit_send -> submit_recv";
            default: return "submit_recv -> submit_send";
        }
    }

    void prepare(driven &d) override {
        if (!queue_) {
            const auto &transport = (d.out ? d.out : d.in)->transport();
            queue_.emplace(transport, static_cast<std::uint32_t>(2 * drivers_.size() + 2));
        }
        // Stays put while a receive is submitted. A stream receiver reads what the thread
        // engine's does, --batch messages' worth a call (within 32 MiB a thread).
        if (d.in) d.recv.reserve(size_, reads_ahead(d) ? receive_bytes() / size_ : 1, 0);
    }

    bool reads_ahead(const driven &d) const {
        return j_.stream && d.task->part == job_kind::receive;
    }

    std::size_t receive_bytes() const {
        const std::size_t most = size_ * batch_;
        const std::size_t share =
            (std::size_t{32} << 20) / std::max<std::size_t>(1, drivers_.size());
        return std::max(size_, std::min(most, share));
    }

    bool drive(driven &d) override {
        switch (d.task->part) {
            case job_kind::send:
                if (d.send_pending) break;
                if (!d.send.busy && !next_to_send(d, now_ns())) break;
                submit_send(d);
                break;
            case job_kind::receive:
                if (!d.recv_pending) submit_recv(d);
                break;
            case job_kind::ping:
                if (!d.send_pending && !d.send.busy && d.t0 == 0 && !next_ping(d, now_ns())) break;
                if (d.send.busy && !d.send_pending)
                    submit_send(d);
                else if (!d.send.busy && d.t0 != 0 && !d.recv_pending)
                    submit_recv(d);
                break;
            default:  // pong: echo what came, then receive the next
                if (d.send.busy && !d.send_pending)
                    submit_send(d);
                else if (!d.send.busy && !d.recv_pending)
                    submit_recv(d);
        }
        return false;  // completions move it on
    }

    void submit_send(driven &d) {
        const std::uint64_t tag = 2 * static_cast<std::uint64_t>(&d - drivers_.data());
        const int32_t s = queue_->submit_send(*d.out, d.send.bytes.data(), d.send.length, tag);
        if (s != IPCB_OK) return failed(d, *d.out, s, "submit_send", queue_->last_error());
        d.send_pending = true;
    }

    void submit_recv(driven &d) {
        const std::uint64_t tag = 2 * static_cast<std::uint64_t>(&d - drivers_.data()) + 1;
        const int32_t s = queue_->submit_recv(*d.in, d.recv.room(), d.recv.room_bytes(), tag);
        if (s != IPCB_OK) return failed(d, *d.in, s, "submit_recv", queue_->last_error());
        d.recv_pending = true;
    }

    void wait_io(std::int64_t timeout_ns) override {
        std::uint32_t n = 0;
        const int32_t s = queue_->wait(
            completions_.data(), static_cast<std::uint32_t>(completions_.size()), &n, timeout_ns);
        if (s != IPCB_OK && s != IPCB_E_TIMEOUT)
            throw std::runtime_error("cq_wait failed (" + std::string(ipcb_status_name(s)) +
                                     "): " + queue_->last_error());
        for (std::uint32_t i = 0; i < n && s == IPCB_OK; ++i) {
            const ipcb_completion &c = completions_[i];
            const std::uint64_t index = c.user_data / 2;
            if (index >= drivers_.size())
                throw std::runtime_error("cq_wait returned user_data " +
                                         std::to_string(c.user_data) +
                                         " that was never submitted: the plugin broke its "
                                         "contract");
            driven &d = drivers_[index];
            if (c.user_data % 2) {
                received(d, c);
            } else {
                sent(d, c);
            }
            enqueue(d);
        }
    }

    void sent(driven &d, const ipcb_completion &c) {
        d.send_pending = false;
        if (d.done) return;
        if (c.status != IPCB_OK || c.len != d.send.length)
            return failed(
                d, *d.out, c.status == IPCB_OK ? IPCB_E_INTERNAL : c.status, "submit_send",
                c.status == IPCB_OK ? "completed with " + std::to_string(c.len) + " of " +
                                          std::to_string(d.send.length) + " bytes"
                                    : "completed with " + std::string(ipcb_status_name(c.status)));
        d.send.busy = false;
        switch (d.task->part) {
            case job_kind::send: sent_one(d); break;
            case job_kind::ping:
                if (d.send.header & flag_end) --d.end_markers;
                break;
            default:
                ++d.echoed;
                d.task->progress.messages.store(d.echoed, std::memory_order_relaxed);
        }
    }

    void received(driven &d, const ipcb_completion &c) {
        d.recv_pending = false;
        if (d.done) return;
        if (c.status == IPCB_E_CLOSED && d.task->part == job_kind::receive) {
            d.tally.ended_by = "closed";
            d.tally.end = d.tally.received ? now_ns() : 0;
            return finish_receiver(d);
        }
        if (c.status == IPCB_E_CLOSED && d.task->part == job_kind::pong) return finish_ponger(d);
        const std::size_t room = d.recv.room_bytes();
        if (c.status != IPCB_OK || c.len == 0 || c.len > room || (!j_.stream && c.len != room))
            return failed(d, *d.in, c.status == IPCB_OK ? IPCB_E_INTERNAL : c.status, "submit_recv",
                          c.status == IPCB_OK
                              ? "completed with " + std::to_string(c.len) + " bytes for " +
                                    std::to_string(room)
                              : "completed with " + std::string(ipcb_status_name(c.status)));
        // One message's room when not reading ahead: the rest of it, then it is whole.
        d.recv.arrived(c.len, [&](const unsigned char *m) {
            whole_message(d, m);
            return !d.done;
        });
    }

    void whole_message(driven &d, const unsigned char *m) {
        switch (d.task->part) {
            case job_kind::receive: {
                stats::latency_histogram *one_way = paced_ ? &one_way_ : nullptr;
                if (!d.tally.count(m, j_, pattern_, one_way, [] {})) return finish_receiver(d);
                d.task->progress.messages.store(d.tally.received, std::memory_order_relaxed);
                d.task->progress.expected_next.store(d.tally.sequences.highest_plus_one(),
                                                     std::memory_order_relaxed);
                return;
            }
            case job_kind::ping: return pong_arrived(d, m, now_ns());
            default: {
                const std::uint64_t header = read_header(m);
                const timing::pong_step step = timing::ponger_step(header, d.timed);
                if (step == timing::pong_step::end) return finish_ponger(d);
                if (step == timing::pong_step::echo_first_timed) {
                    d.timed = true;
                    d.first_ns = now_ns();
                }
                std::memcpy(d.send.bytes.data(), m, size_);
                d.send.begin(header, size_);
            }
        }
    }

    void failed(driven &d, plugin::transport_endpoint &ep, int32_t status, const char *what,
                const std::string &text) {
        loop_result partial;
        partial.part = d.task->part;
        partial.error =
            ep.transport().id + " " + what + " failed (" + ipcb_status_name(status) + "): " + text;
        partial.status = status;
        finish(d, std::move(partial));
    }

    std::optional<plugin::completion_queue> queue_;
    std::vector<ipcb_completion> completions_;
};

}  // namespace

std::unique_ptr<stream_engine> make_completion_engine(std::vector<stream_task *> tasks,
                                                      const job &j,
                                                      const endpoint_lookup &endpoint_for) {
    return std::make_unique<completion_engine>(std::move(tasks), j, endpoint_for);
}

}  // namespace ipcbench::timed
