// The source x destination heatmaps of an `ipchost fleet` run: per transport, size and mode,
// one per figure (throughput MB/s; latency p50 and p99 in microseconds), each pair's cell
// shaded by its figure, and the outliers marked: pairs, and agents, farther than k scaled MADs
// and 10 %
// (1.4826 x the median absolute deviation, the standard deviation's robust stand-in) from the
// fleet's median. Shown in the HTML report and under the text tables.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/run_report.hpp"

namespace ipcbench::report {

// How far from the median, in scaled MADs, a pair or an agent is an outlier; and by what share
// of the median at least: a healthy fleet's figures sit so close together (five agents on one
// bridge: a MAD of 4 %) that 3 MADs alone would mark noise no operator acts on.
inline constexpr double fleet_outlier_mads = 3;
inline constexpr double fleet_outlier_share = 0.10;

struct fleet_heatmap {
    std::string title;                // "socket.tcp 64 KiB throughput, MB/s"
    bool higher_is_better = true;     // throughput: yes; latency: no
    std::vector<std::string> agents;  // rows and columns
    // Each agent's labels as one text ("node=n1 zone=a"), from the rows: what the list and the
    // agent's own --label said, so a node's name stands beside its address.
    std::map<std::string, std::string> agent_labels;
    std::map<std::pair<std::string, std::string>, double> values;       // (source, destination)
    std::map<std::pair<std::string, std::string>, std::string> failed;  // why not measured
    double median = 0, scaled_mad = 0;                                  // over the pairs measured
    std::set<std::pair<std::string, std::string>> outlier_pairs;
    // Agents whose own median (over the pairs they are in, either side) is an outlier among
    // the agents' medians, with that median.
    std::map<std::string, double> outlier_agents;
};

std::vector<fleet_heatmap> fleet_heatmaps(const run_report &report, double k = fleet_outlier_mads);

std::string heatmaps_text(const std::vector<fleet_heatmap> &maps, bool markdown);
std::string heatmaps_html(const std::vector<fleet_heatmap> &maps);

}  // namespace ipcbench::report
