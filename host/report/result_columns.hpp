#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report/run_report.hpp"

namespace ipcbench::report {

// One column of the results, the one description every tabular format renders: the text table
// and Markdown show the columns with a header for their table (throughput or latency), CSV
// shows every column under its key. Adding a column here adds it to all three.
struct column {
    std::string key;                // CSV header, snake_case with the unit in the name
    std::string throughput_header;  // "" = not in the throughput table
    std::string latency_header;     // "" = not in the latency table
    // Tables: shown only when this says so for the run and table (optional columns); null =
    // always.
    std::function<bool(const run_report &, bool latency_table)> shown;
    std::function<std::string(const case_result &)> text;   // table cell
    std::function<std::string(const case_result &)> value;  // CSV field, unquoted
    bool figure = true;  // a measured figure: empty in CSV for results that are not ok
    // The default table keeps the columns of lowest priority first until it is as wide as it
    // may be (table_report.cpp): 0 the figures a user reads first, higher ones go first.
    int priority = 3;
};

const std::vector<column> &result_columns();

enum class table_kind { throughput, latency };
// The column with this key (its CSV header), or null.
const column *find_column(const std::string &key);
// "transport, mode, ...": every key, for an error that lists them.
std::string column_keys();

// The columns of one table of this run, with their headers.
std::vector<std::pair<std::string, const column *>> table_columns(const run_report &report,
                                                                  table_kind kind);

bool is_throughput(const case_result &r);
bool is_latency(const case_result &r);

// "32 B", "1 KiB", "64 KiB", "1 MiB", "1000 B"
std::string format_size(std::uint64_t bytes);

}  // namespace ipcbench::report
