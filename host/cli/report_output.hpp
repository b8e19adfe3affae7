#pragma once

#include <string>

#include "report/output_formats.hpp"
#include "report/run_report.hpp"

namespace ipcbench::cli {

// Fails with a usage_error now, not after a long run, if `path` cannot be written.
void check_output_file(const std::string &path);

// Renders the report in that format, to `path` or stdout.
void write_report(const report::run_report &report, report::output_format format,
                  const std::string &path);

// Writes `text` to `path` (stdout when empty) and flushes; throws std::runtime_error naming the
// destination when any byte could not be written (exit code 1).
void write_text(const std::string &text, const std::string &path);

}  // namespace ipcbench::cli
