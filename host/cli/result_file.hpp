#pragma once

#include <string>

#include "report/run_report.hpp"

namespace ipcbench::cli {

// Reads a result file written by `ipchost --format json`; a usage_error names the file and what
// is wrong with it (missing, not JSON, another schema version, a field of the wrong kind).
report::run_report load_result_file(const std::string &path);

}  // namespace ipcbench::cli
