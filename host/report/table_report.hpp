#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/result_columns.hpp"
#include "report/run_report.hpp"

namespace ipcbench::report {

// Which columns a table shows. By default it fits `width` characters: the columns a user reads
// first (column::priority 0) and then as many more as fit, in priority order, with a line that
// names what was left out; every other line of the report is wrapped to the same width.
// `wide` (--wide) shows every column of the run; `columns` (--columns KEY,...: the CSV keys)
// exactly those, in that order. Markdown is a document, not a terminal: every column unless
// `columns` says otherwise. JSON and CSV always carry every figure.
struct table_layout {
    std::size_t width = 120;
    bool wide = false;
    std::vector<std::string> columns;
};

// The human-readable report: a throughput table, a latency table, warnings, then the cases not
// measured and why. `markdown` renders the same tables as GitHub-flavoured Markdown.
// The table's first line: version, system, CPU, cores, load, start time. A run with --interval
// prints it before the first interval line, so the lines that follow have a head.
std::string run_heading(const run_report &report, bool markdown, const table_layout &layout);
std::string to_table(const run_report &report, bool markdown = false,
                     const table_layout &layout = {});

}  // namespace ipcbench::report
