// The writer x reader grid of a run with several implementations on a side (--impl
// sender=native,go --impl receiver=native,java ...): for each transport, size and mode, one
// figure per pair (throughput MB/s, or the round trip's p50 in microseconds), each beside its
// ratio to the native -> native pair when that pair ran. Shown under the tables (text and
// Markdown) and in the HTML report; the rows of the tables stay what they are.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/run_report.hpp"

namespace ipcbench::report {

struct impl_grid {
    std::string title;                 // "socket.tcp 1 KiB throughput, MB/s"
    bool higher_is_better = true;      // throughput: yes; latency p50: no
    std::vector<std::string> writers;  // rows: sender (throughput) or pinger (latency)
    std::vector<std::string> readers;  // columns: receiver or ponger
    std::map<std::pair<std::string, std::string>, const case_result *> cells;  // (writer, reader)
};

// The grids of a run: one per transport, size, mode (and streams, rate, batch) in which more
// than one pair of implementations ran. Empty when every case ran one pair.
std::vector<impl_grid> impl_grids(const run_report &report);

// A cell's text: "412.3 (0.87)", the figure and its ratio to native -> native; "failed".
std::string grid_cell(const impl_grid &g, const std::string &writer, const std::string &reader);

// Rows of cells as an aligned text table (the first column left, the rest right) or Markdown
// (the first row the header).
std::string grid_lines(std::vector<std::vector<std::string>> rows, bool markdown);

// Every grid as text tables (or Markdown), with a heading line each.
std::string grids_text(const std::vector<impl_grid> &grids, bool markdown);

// Every grid as an HTML table, the baseline cell marked.
std::string grids_html(const std::vector<impl_grid> &grids);

}  // namespace ipcbench::report
