#pragma once

#include <string>
#include <vector>

#include "plugin/transport_info.hpp"

namespace ipcbench::plugin {

// Removes the OS objects `addresses` name with the transport's remove_address, for a creator that
// died before close(). The plugin runs in an isolated child with a deadline, never in ipchost:
// a crash or hang there costs a warning, not the run. Returns one line per address that could
// not be removed, naming the address and why.
std::vector<std::string> remove_addresses_isolated(const transport_info &transport,
                                                   const std::vector<std::string> &addresses);

inline constexpr int remove_address_timeout_ms = 5000;

}  // namespace ipcbench::plugin
