#pragma once

#include <string>

#include "report/result_columns.hpp"
#include "report/run_report.hpp"

namespace ipcbench::report {

// The human-readable report: a throughput table, a latency table, warnings, then the cases not
// measured and why. `markdown` renders the same tables as GitHub-flavoured Markdown.
std::string to_table(const run_report &report, bool markdown = false);

}  // namespace ipcbench::report
