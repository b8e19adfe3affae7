#pragma once

#include <string>
#include <vector>

namespace ipcbench::text {

// " (did you mean 'pipe.fifo'?)" for the known name nearest to `given` by edit distance
// (Levenshtein, case-insensitive), when it is near enough to be a typo: at most 2 edits, or a
// third of the name's length for longer names; "" otherwise. Appended to "no such ..." errors
// of options, transports, kits and columns.
std::string did_you_mean(const std::string &given, const std::vector<std::string> &known);

}  // namespace ipcbench::text
