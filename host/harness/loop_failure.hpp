#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "plugin/transport_endpoint.hpp"

namespace ipcbench::harness {

// Adds "error" and "status" to a loop's partial result, naming the call that failed.
inline nlohmann::json loop_failure(plugin::transport_endpoint &ep, int32_t status, const char *what,
                                   nlohmann::json partial) {
    const std::string name = ipcb_status_name(status);
    partial["error"] = ep.transport().id + " " + what + " failed (" +
                       (name == "IPCB_E_UNKNOWN" ? "unknown status " + std::to_string(status) +
                                                       ": the plugin broke its contract)"
                                                 : name + "): " + ep.last_error());
    partial["status"] = status;
    return partial;
}

}  // namespace ipcbench::harness
