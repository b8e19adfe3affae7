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

}  // namespace ipcbench::plugin
