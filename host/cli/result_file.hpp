#pragma once

#include <cstddef>
#include <string>

#include "report/run_report.hpp"
#include "text/untrusted_json.hpp"

namespace ipcbench::cli {

// What `report` and `compare` read at most: a file may come from anyone, and parsing costs a
// multiple of its size. ipchost's own files are far smaller (docs/json-schema.md).
inline constexpr std::size_t max_result_file_bytes = std::size_t{64} << 20;
inline constexpr text::json_limits result_file_limits{32, std::size_t{1} << 22};

// Reads a result file written by `ipchost --format json`; a usage_error names the file and what
// is wrong with it (missing, too large, too deeply nested, not JSON, another schema version, a
// field of the wrong kind).
report::run_report load_result_file(const std::string &path);

}  // namespace ipcbench::cli
