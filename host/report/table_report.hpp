#pragma once

#include <string>

#include "report/run_report.hpp"

namespace ipcbench::report {

// The human-readable tables: one for throughput cases, one for latency cases, then failures.
std::string to_table(const run_report &report);

// "32 B", "1 KiB", "64 KiB", "1 MiB", "1000 B"
std::string format_size(std::uint64_t bytes);

}  // namespace ipcbench::report
