#pragma once

#include <cstddef>
#include <string>

namespace ipcbench::text {

// Untrusted text (a plugin's id or description, a client's name, a result file's string) made
// safe for a terminal or a log line: control characters (newlines, ANSI escapes, DEL) and invalid
// UTF-8 become \xNN, and the result is cut to max_chars characters with "..." appended.
// C1 controls and bidirectional overrides, valid UTF-8 though they are, become \uNNNN.
std::string printable(const std::string &untrusted, std::size_t max_chars);

// Where untrusted text meets an output format, each writer passes it through one of these:
// a terminal table or log line (printable);
std::string terminal_text(const std::string &untrusted, std::size_t max_chars = 2000);
// a Markdown table cell or list item: printable, '|' escaped, <, >, & as HTML entities, and
// [ ] ( ) ! ` escaped so no link or image (a beacon) is made of it;
std::string markdown_text(const std::string &untrusted, std::size_t max_chars = 2000);
// an HTML text node or attribute value: printable (so the page is inert on a terminal as well:
// `ipchost report FILE` writes it to standard output) and <, >, &, ", ' as entities;
std::string html_text(const std::string &untrusted);
// a CSV field before quoting: printable, and a text a spreadsheet would take for a formula (one
// that starts with =, +, -, @; tab and CR are escaped already) prefixed with ' as OWASP advises,
// unless it is a number.
std::string csv_text(const std::string &untrusted);

}  // namespace ipcbench::text
