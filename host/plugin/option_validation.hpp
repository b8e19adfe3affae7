#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

// Asks the transport itself whether it takes these option values, before anything runs: an
// isolated process loads the plugin, opens a creator endpoint with the options in a private run
// directory, and closes it. Returns the plugin's message when the open failed with
// IPCB_E_UNKNOWN_OPTION or IPCB_E_BAD_OPTION; "" when the values were taken, or when the open
// failed for another reason (a limit, a busy port: the case itself reports that).
std::string rejected_option_values(const transport_info &transport,
                                   const std::map<std::string, std::string> &options,
                                   std::uint64_t max_message_size);

constexpr int option_check_timeout_ms = 5000;

}  // namespace ipcbench::plugin
