#include "plugin/transport_endpoint.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "plugin/host_services.hpp"

namespace ipcbench::plugin {

transport_endpoint::transport_endpoint(const transport_info &transport, std::uint32_t role,
                                       std::uint32_t direction,
                                       const std::map<std::string, std::string> &options,
                                       const std::string &address, const std::string &runtime_dir,
                                       std::uint64_t max_message_size)
    : info_(&transport), table_(transport.table) {
    if (table_ == nullptr)
        throw std::logic_error("transport " + transport.id +
                               " is metadata only here: endpoints are opened in workers, which "
                               "load the plugin with load_transport");
    error_.struct_size = sizeof error_;
    // Members after 1.0 are read only where the loader found them (transport.calls).
    if (transport.calls.zero_copy_send) {
        borrow_ = table_->borrow;
        publish_ = table_->publish;
    }
    if (transport.calls.zero_copy_recv) {
        take_ = table_->take;
        release_ = table_->release;
    }
    if (transport.calls.send_batch) send_batch_ = table_->send_batch;
    if (transport.calls.recv_batch) recv_batch_ = table_->recv_batch;
    if (transport.calls.readiness) {
        event_source_ = table_->event_source;
        try_send_ = table_->try_send;
        try_recv_ = table_->try_recv;
    }
    std::vector<ipcb_kv> kvs;
    kvs.reserve(options.size());
    for (const auto &[key, value] : options) kvs.push_back({key.c_str(), value.c_str()});
    ipcb_open_params params{};
    params.struct_size = sizeof params;
    params.role = role;
    params.direction = direction;
    params.option_count = static_cast<std::uint32_t>(kvs.size());
    params.options = kvs.empty() ? nullptr : kvs.data();
    params.address = address.empty() ? nullptr : address.c_str();
    params.runtime_dir = runtime_dir.empty() ? nullptr : runtime_dir.c_str();
    params.max_message_size = max_message_size;
    params.host = &host_services();
    int32_t status = table_->open(&params, &endpoint_, &error_);
    if (status != IPCB_OK) {
        endpoint_ = nullptr;
        throw_last(status, "open");
    }
    if (endpoint_ == nullptr)
        throw transport_error(IPCB_E_INTERNAL,
                              transport.id + " open returned IPCB_OK without an endpoint");
}

transport_endpoint::~transport_endpoint() {
    close_now();
}

void transport_endpoint::close_now() {
    if (endpoint_) table_->close(endpoint_);
    endpoint_ = nullptr;
}

int32_t transport_endpoint::contract_violation(const std::string &what) {
    std::snprintf(error_.message, sizeof error_.message, "the plugin broke its contract: %s",
                  what.c_str());
    error_.sys_errno = 0;
    return IPCB_E_INTERNAL;
}

std::string transport_endpoint::last_error() const {
    ipcb_error copy = error_;
    copy.message[sizeof copy.message - 1] = '\0';
    std::string text = copy.message[0] ? copy.message : "no message";
    return text;
}

void transport_endpoint::throw_last(int32_t status, const std::string &what) const {
    throw transport_error(status, info_->id + " " + what + " failed (" + ipcb_status_name(status) +
                                      "): " + last_error());
}

std::string transport_endpoint::export_address() {
    std::vector<char> buf(4096, '\0');
    int32_t status = table_->export_address(endpoint_, buf.data(), buf.size(), &error_);
    if (status != IPCB_OK) throw_last(status, "export_address");
    buf.back() = '\0';
    return buf.data();
}

void transport_endpoint::bind_peer(const std::string &peer_host, const std::string &key) {
    const void *found = nullptr;
    if (IPCB_HAS_FIELD(table_, ipcb_transport, get_extension) && table_->get_extension != nullptr)
        found = table_->get_extension(IPCB_EXT_PEER_BINDING);
    const auto *ext = static_cast<const ipcb_peer_binding *>(found);
    if (ext == nullptr || ext->struct_size < sizeof(ipcb_peer_binding) || ext->bind_peer == nullptr)
        throw std::runtime_error(
            std::string(table_->id) +
            " cannot bind its data connection to one peer (it offers no " IPCB_EXT_PEER_BINDING
            " extension), so an agent cannot keep a third party off it; an agent's operator may "
            "serve it unbound with ipchost serve --allow-unbound " +
            table_->id);
    const int32_t status =
        ext->bind_peer(endpoint_, peer_host.c_str(), reinterpret_cast<const uint8_t *>(key.data()),
                       static_cast<uint32_t>(key.size()), &error_);
    if (status != IPCB_OK) throw_last(status, "bind_peer");
}

void transport_endpoint::connect(std::int64_t timeout_ns) {
    int32_t status = table_->connect(endpoint_, timeout_ns, &error_);
    if (status != IPCB_OK) throw_last(status, "connect");
}

std::map<std::string, std::string> transport_endpoint::settings() {
    std::map<std::string, std::string> out;
    if (table_->query_settings == nullptr) return out;
    table_->query_settings(
        endpoint_,
        [](void *context, const char *key, const char *value) {
            if (key && value)
                (*static_cast<std::map<std::string, std::string> *>(context))[key] = value;
        },
        &out);
    return out;
}

ipcb_event_source transport_endpoint::event_source(std::string *why_not) {
    ipcb_event_source source{};
    source.struct_size = sizeof source;
    why_not->clear();
    if (event_source_ == nullptr) {
        *why_not = info_->id + " offers no readiness calls (ABI 1.2 event_source)";
        return source;
    }
    const int32_t status = event_source_(endpoint_, &source, &error_);
    if (status == IPCB_E_UNSUPPORTED) {
        *why_not = last_error();
        return source;
    }
    if (status != IPCB_OK) throw_last(status, "event_source");
    if (source.kind != IPCB_HANDLE_FD || source.handle < 0 ||
        (source.recv_events | source.send_events) == 0 ||
        ((source.recv_events | source.send_events) &
         ~std::uint32_t{IPCB_EVENT_READABLE | IPCB_EVENT_WRITABLE}) != 0)
        throw transport_error(
            IPCB_E_INTERNAL,
            info_->id + " event_source returned kind " + std::to_string(source.kind) + ", handle " +
                std::to_string(source.handle) + ", events " + std::to_string(source.recv_events) +
                "/" + std::to_string(source.send_events) +
                ": expected IPCB_HANDLE_FD, a descriptor and IPCB_EVENT_* bits");
    return source;
}

}  // namespace ipcbench::plugin
