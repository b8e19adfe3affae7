#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "plugin/transport_info.hpp"

namespace ipcbench::conformance {

struct check_result {
    std::string transport;
    std::string name;  // "payload", "timeout", ...
    bool passed = false;
    std::string detail;
    bool skipped = false;  // not run: the kit's manifest does not take a side it needs
};

// Runs every conformance check against one transport, between two worker processes where the
// check needs a peer. Calls `report` as each check finishes. Never hangs: every step is bounded
// by a watchdog that kills the workers and fails the check: each step's own bound (20 to 60 s),
// or min_watchdog_s (the command's --timeout) when that is longer.
std::vector<check_result> run_conformance(const plugin::transport_info &transport,
                                          const std::map<std::string, std::string> &options,
                                          const std::function<void(const check_result &)> &report,
                                          double min_watchdog_s = 0);

}  // namespace ipcbench::conformance
