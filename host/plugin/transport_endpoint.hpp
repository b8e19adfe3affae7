#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

// A failed call into a plugin: its status code and the message it wrote.
struct transport_error : std::runtime_error {
    transport_error(int32_t status, const std::string &message)
        : std::runtime_error(message), status(status) {}
    int32_t status;
};

// Owns one endpoint of a transport: open on construction, close on destruction. The data-path
// calls (send_raw/recv_raw) return the status instead of throwing, so the timed loops stay lean.
class transport_endpoint {
public:
    transport_endpoint(const transport_info &transport, std::uint32_t role, std::uint32_t direction,
                       const std::map<std::string, std::string> &options,
                       const std::string &address, const std::string &runtime_dir,
                       std::uint64_t max_message_size);
    ~transport_endpoint();
    transport_endpoint(const transport_endpoint &) = delete;
    transport_endpoint &operator=(const transport_endpoint &) = delete;

    std::string export_address();
    // Closes the endpoint before its owner goes (a check that closes with work outstanding);
    // no call but the destructor may follow.
    void close_now();
    void connect(std::int64_t timeout_ns);
    // Binds the endpoint to its one peer before connect (the SDK's "ipcb.peer-binding/1"): a
    // creator takes only `peer_host` presenting `key`, a connector presents `key`. Throws naming
    // the transport when it offers no such extension, or with the plugin's refusal.
    void bind_peer(const std::string &peer_host, const std::string &key);
    std::map<std::string, std::string> settings();

    int32_t send_raw(const void *buf, std::size_t len, std::int64_t timeout_ns) {
        return table_->send(endpoint_, buf, len, timeout_ns, &error_);
    }
    int32_t recv_raw(void *buf, std::size_t cap, std::size_t *len, std::int64_t timeout_ns) {
        return table_->recv(endpoint_, buf, cap, len, timeout_ns, &error_);
    }
    // The 1.1 data path, present only when the plugin's table has it (see transport.h).
    bool has_zero_copy_send() const { return borrow_ && publish_; }
    bool has_zero_copy_recv() const { return take_ && release_; }
    bool has_send_batch() const { return send_batch_ != nullptr; }
    bool has_recv_batch() const { return recv_batch_ != nullptr; }
    int32_t borrow_raw(std::size_t len, std::uint32_t max, ipcb_msg *slots, std::uint32_t *count,
                       std::int64_t timeout_ns) {
        return borrow_(endpoint_, len, max, slots, count, timeout_ns, &error_);
    }
    int32_t publish_raw(std::uint32_t count) { return publish_(endpoint_, count, &error_); }
    int32_t take_raw(std::uint32_t max, ipcb_msg *msgs, std::uint32_t *count,
                     std::int64_t timeout_ns) {
        return take_(endpoint_, max, msgs, count, timeout_ns, &error_);
    }
    int32_t release_raw(std::uint32_t count) { return release_(endpoint_, count, &error_); }
    int32_t send_batch_raw(const ipcb_msg *msgs, std::uint32_t count, std::uint32_t *sent,
                           std::int64_t timeout_ns) {
        return send_batch_(endpoint_, msgs, count, sent, timeout_ns, &error_);
    }
    int32_t recv_batch_raw(ipcb_msg *msgs, std::uint32_t count, std::uint32_t *received,
                           std::int64_t timeout_ns) {
        return recv_batch_(endpoint_, msgs, count, received, timeout_ns, &error_);
    }

    // The 1.2 readiness calls (see transport.h), present only when the plugin offers all three.
    bool has_readiness() const { return try_send_ != nullptr; }
    // The handle to wait on; an empty string in *why_not when the endpoint has one, otherwise
    // the plugin's reason (IPCB_E_UNSUPPORTED for these options). Throws on other failures.
    ipcb_event_source event_source(std::string *why_not);
    int32_t try_send_raw(const void *buf, std::size_t len, std::size_t *sent) {
        return try_send_(endpoint_, buf, len, sent, &error_);
    }
    int32_t try_recv_raw(void *buf, std::size_t cap, std::size_t *len) {
        return try_recv_(endpoint_, buf, cap, len, &error_);
    }
    // The plugin's own endpoint, for calls that take it with another object (a completion
    // queue's submit_send).
    ipcb_endpoint *raw() const { return endpoint_; }

    // Records that the plugin broke its contract (a length it cannot have returned, an unknown
    // status) as the last error; returns IPCB_E_INTERNAL.
    int32_t contract_violation(const std::string &what);

    // The message of the last failed call, with its status name.
    std::string last_error() const;
    [[noreturn]] void throw_last(int32_t status, const std::string &what) const;

    const transport_info &transport() const { return *info_; }

private:
    const transport_info *info_;
    const ipcb_transport *table_;
    ipcb_endpoint *endpoint_ = nullptr;
    ipcb_error error_{};
    decltype(ipcb_transport::borrow) borrow_ = nullptr;
    decltype(ipcb_transport::publish) publish_ = nullptr;
    decltype(ipcb_transport::take) take_ = nullptr;
    decltype(ipcb_transport::release) release_ = nullptr;
    decltype(ipcb_transport::send_batch) send_batch_ = nullptr;
    decltype(ipcb_transport::recv_batch) recv_batch_ = nullptr;
    decltype(ipcb_transport::event_source) event_source_ = nullptr;
    decltype(ipcb_transport::try_send) try_send_ = nullptr;
    decltype(ipcb_transport::try_recv) try_recv_ = nullptr;
};

}  // namespace ipcbench::plugin
