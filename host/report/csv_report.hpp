#pragma once

#include <string>

#include "report/run_report.hpp"

namespace ipcbench::report {

// One row per result, every figure in its own column (raw numbers, no units in the cells).
std::string to_csv(const run_report &report);

// Every latency distribution: one row per histogram bucket with its count and the cumulative
// percentile up to it (--histogram FILE).
std::string histograms_to_csv(const run_report &report);

}  // namespace ipcbench::report
