#pragma once

#include <cstddef>
#include <string>

namespace ipcbench::text {

// Untrusted text (a plugin's id or description, a client's name, a result file's string) made
// safe for a terminal or a log line: control characters (newlines, ANSI escapes, DEL) and invalid
// UTF-8 become \xNN, and the result is cut to max_chars characters with "..." appended.
std::string printable(const std::string &untrusted, std::size_t max_chars);

}  // namespace ipcbench::text
