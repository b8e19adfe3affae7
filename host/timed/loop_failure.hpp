#pragma once

#include <string>

#include "model/loop_result.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::timed {

// Marks a loop's partial result failed, naming the call that failed and the plugin's words.
inline model::loop_result loop_failure(plugin::transport_endpoint &ep, int32_t status,
                                       const char *what, model::loop_result partial) {
    const std::string name = ipcb_status_name(status);
    partial.error = ep.transport().id + " " + what + " failed (" +
                    (name == "IPCB_E_UNKNOWN" ? "unknown status " + std::to_string(status) +
                                                    ": the plugin broke its contract)"
                                              : name + "): " + ep.last_error());
    partial.status = status;
    return partial;
}

}  // namespace ipcbench::timed
