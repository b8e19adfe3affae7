#pragma once

#include <string>
#include <vector>

#include "model/case_result.hpp"

namespace ipcbench::report {

// One kind of warning and the cases it covers: the same text with other numbers ("ran on the
// same CPU for 52%" here, "for 97%" there) is one kind, said once under a table.
struct warning_group {
    // The text, each number that differs between the cases shown as its range ("52–97%").
    std::string text;
    // The cases it is about, in the order of the results (transport, size, mode, and who ran
    // each side and the direction where they are not the default).
    std::vector<std::string> cases;
};

// The warnings of these results grouped by kind, in the order each kind first appears.
std::vector<warning_group> group_warnings(const std::vector<const case_result *> &warned);

// A case as a warning names it: "socket.tcp 1 KiB throughput", "+ [go -> python]" when a kit
// ran a side, "+ reverse" when not forward.
std::string warned_case(const case_result &r);

}  // namespace ipcbench::report
