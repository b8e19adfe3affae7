#include "plugin/host_services.hpp"

#include <spdlog/spdlog.h>

namespace ipcbench::plugin {
namespace {

void IPCB_CALL log_from_plugin(const ipcb_host *, int32_t level, const char *message) {
    if (message == nullptr) return;
    switch (level) {
        case IPCB_LOG_DEBUG: spdlog::debug("plugin: {}", message); break;
        case IPCB_LOG_INFO: spdlog::info("plugin: {}", message); break;
        case IPCB_LOG_WARN: spdlog::warn("plugin: {}", message); break;
        default: spdlog::error("plugin: {}", message); break;
    }
}

}  // namespace

const ipcb_host &host_services() {
    static const ipcb_host host = {sizeof(ipcb_host), IPCB_ABI_VERSION, "ipchost",
                                   IPCBENCH_VERSION,  nullptr,          log_from_plugin};
    return host;
}

}  // namespace ipcbench::plugin
