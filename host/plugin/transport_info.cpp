#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

std::string describe_caps(std::uint64_t caps) {
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
    std::string out;
    for (const auto &n : names) {
        if (caps & n.bit) {
            if (!out.empty()) out += ',';
            out += n.name;
        }
    }
    return out;
}

std::string describe_data_path(const ipcb_transport &t) {
    if (!IPCB_HAS_FIELD(&t, ipcb_transport, recv_batch)) return "send/recv only (ABI 1.0)";
    std::string out;
    auto add = [&out](bool present, const char *name) {
        if (!present) return;
        if (!out.empty()) out += ", ";
        out += name;
    };
    add(t.borrow && t.publish, "borrow/publish");
    add(t.take && t.release, "take/release");
    add(t.send_batch != nullptr, "send_batch");
    add(t.recv_batch != nullptr, "recv_batch");
    return out.empty() ? "send/recv only" : "send/recv, " + out;
}

}  // namespace ipcbench::plugin
