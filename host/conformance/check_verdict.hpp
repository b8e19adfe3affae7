#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "plugin/transport_endpoint.hpp"

namespace ipcbench::conformance {

// What every worker-side check returns: {"ok": bool, "detail": "..."}.
inline nlohmann::json verdict(bool ok, std::string detail) {
    return {{"ok", ok}, {"detail", std::move(detail)}};
}

// "IPCB_E_TIMEOUT: <the plugin's message>" for a failed call on ep.
inline std::string failure_text(plugin::transport_endpoint &ep, int32_t status) {
    return std::string(ipcb_status_name(status)) + ": " + ep.last_error();
}

}  // namespace ipcbench::conformance
