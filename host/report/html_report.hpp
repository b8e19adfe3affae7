#pragma once

#include <string>

#include "report/run_report.hpp"

namespace ipcbench::report {

// One self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched): throughput and
// messages/s against message size per transport, latency percentiles per transport, CPU per MB,
// and the result tables.
std::string to_html(const run_report &report);

}  // namespace ipcbench::report
