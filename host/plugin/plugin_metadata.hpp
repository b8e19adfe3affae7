#pragma once

#include <nlohmann/json.hpp>

#include "plugin/plugin_loader.hpp"

namespace ipcbench::plugin {

// What a probe child learned from loading one file, as it crosses back to ipchost: every field of
// each valid transport_info except the table (code stays in the child), and the rejections.
nlohmann::json metadata_to_json(const load_outcome &outcome);
// The same, read back in the main process: transports without a table (`table == nullptr`).
// Throws nlohmann::json::exception on a malformed document.
load_outcome metadata_from_json(const nlohmann::json &document);

}  // namespace ipcbench::plugin
