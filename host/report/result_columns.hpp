#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/run_report.hpp"

namespace ipcbench::report {

// One column of the human-readable tables (text and Markdown render the same columns).
struct column {
    std::string header;
    std::function<std::string(const case_result &)> cell;
};

// Columns for the measured throughput / latency results of a run; optional columns (direction,
// streams, spread, one-way latency) appear only when some result needs them.
std::vector<column> throughput_columns(const run_report &report);
std::vector<column> latency_columns(const run_report &report);

bool is_throughput(const case_result &r);
bool is_latency(const case_result &r);

// "32 B", "1 KiB", "64 KiB", "1 MiB", "1000 B"
std::string format_size(std::uint64_t bytes);

}  // namespace ipcbench::report
