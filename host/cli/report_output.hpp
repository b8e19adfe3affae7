#pragma once

#include <string>

#include "report/run_report.hpp"

namespace ipcbench::cli {

// Fails with a usage_error now, not after a long run, if `path` cannot be written.
void check_output_file(const std::string &path);

// Renders the report as table, json, csv, markdown or html, to `path` or stdout.
void write_report(const report::run_report &report, const std::string &format,
                  const std::string &path);

}  // namespace ipcbench::cli
