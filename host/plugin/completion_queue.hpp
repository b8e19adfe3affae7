#pragma once

#include <cstdint>
#include <string>

#include "plugin/transport_endpoint.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

// Owns one completion queue of a transport (ABI 1.2 cq_open ... cq_close), for one thread. The
// data-path calls return the status, as transport_endpoint's do; the queue is closed on
// destruction.
class completion_queue {
public:
    // Throws transport_error with the plugin's words when the transport has no completion calls
    // or cq_open fails.
    completion_queue(const transport_info &transport, std::uint32_t depth);
    ~completion_queue();
    completion_queue(const completion_queue &) = delete;
    completion_queue &operator=(const completion_queue &) = delete;

    int32_t submit_send(transport_endpoint &ep, const void *buf, std::size_t len,
                        std::uint64_t user_data) {
        return table_->submit_send(queue_, ep.raw(), buf, len, user_data, &error_);
    }
    int32_t submit_recv(transport_endpoint &ep, void *buf, std::size_t cap,
                        std::uint64_t user_data) {
        return table_->submit_recv(queue_, ep.raw(), buf, cap, user_data, &error_);
    }
    int32_t wait(ipcb_completion *out, std::uint32_t max, std::uint32_t *count,
                 std::int64_t timeout_ns) {
        return table_->cq_wait(queue_, out, max, count, timeout_ns, &error_);
    }

    // The message of the last failed call, with its status name.
    std::string last_error() const;

private:
    const ipcb_transport *table_;
    ipcb_completion_queue *queue_ = nullptr;
    ipcb_error error_{};
};

}  // namespace ipcbench::plugin
