#include "plugin/transport_info.hpp"

#include <cstddef>

namespace ipcbench::plugin {

std::vector<std::string> cap_names(std::uint64_t caps) {
    static const struct {
        std::uint64_t bit;
        const char *name;
    } names[] = {{IPCB_CAP_STREAM, "stream"},
                 {IPCB_CAP_MESSAGE, "message"},
                 {IPCB_CAP_RELIABLE, "reliable"},
                 {IPCB_CAP_ORDERED, "ordered"},
                 {IPCB_CAP_CROSS_HOST, "cross-host"},
                 {IPCB_CAP_DUPLEX, "duplex"},
                 {IPCB_CAP_CLOSE_NOTIFY, "close-notify"}};
    std::vector<std::string> out;
    for (const auto &n : names)
        if (caps & n.bit) out.emplace_back(n.name);
    return out;
}

std::string describe_caps(std::uint64_t caps) {
    std::string out;
    for (const auto &name : cap_names(caps)) out += (out.empty() ? "" : ",") + name;
    return out;
}

std::vector<std::string> call_names(const data_path_calls &c) {
    std::vector<std::string> out = {"send", "recv"};
    if (c.zero_copy_send) out.insert(out.end(), {"borrow", "publish"});
    if (c.zero_copy_recv) out.insert(out.end(), {"take", "release"});
    if (c.send_batch) out.emplace_back("send_batch");
    if (c.recv_batch) out.emplace_back("recv_batch");
    if (c.readiness) out.insert(out.end(), {"event_source", "try_send", "try_recv"});
    if (c.completion)
        out.insert(out.end(), {"cq_open", "submit_send", "submit_recv", "cq_wait", "cq_close"});
    return out;
}

std::string describe_event_io(const data_path_calls &c) {
    if (c.readiness && c.completion) return "readiness, completion";
    if (c.readiness) return "readiness";
    if (c.completion) return "completion";
    return "none (1 thread per endpoint)";
}

data_path_calls offered_calls(const ipcb_transport &t) {
    data_path_calls c;
    if (!IPCB_HAS_FIELD(&t, ipcb_transport, recv_batch)) return c;
    c.zero_copy_send = t.borrow && t.publish;
    c.zero_copy_recv = t.take && t.release;
    c.send_batch = t.send_batch != nullptr;
    c.recv_batch = t.recv_batch != nullptr && (t.caps & IPCB_CAP_MESSAGE);
    if (!IPCB_HAS_FIELD(&t, ipcb_transport, cq_close)) return c;
    c.readiness = t.event_source && t.try_send && t.try_recv;
    c.completion = t.cq_open && t.submit_send && t.submit_recv && t.cq_wait && t.cq_close;
    return c;
}

std::string describe_data_path(const transport_info &transport) {
    if (transport.table_size <
        offsetof(ipcb_transport, recv_batch) + sizeof(transport.table->recv_batch))
        return "send/recv only (ABI 1.0)";
    const data_path_calls &c = transport.calls;
    std::string out;
    auto add = [&out](bool present, const char *name) {
        if (!present) return;
        if (!out.empty()) out += ", ";
        out += name;
    };
    add(c.zero_copy_send, "borrow/publish");
    add(c.zero_copy_recv, "take/release");
    add(c.send_batch, "send_batch");
    add(c.recv_batch, "recv_batch");
    return out.empty() ? "send/recv only" : "send/recv, " + out;
}

}  // namespace ipcbench::plugin
