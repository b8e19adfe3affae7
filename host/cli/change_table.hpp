#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_report.hpp"
#include "report/verdict_rules.hpp"

namespace ipcbench::cli {

// What `ipchost ab`, `compare` and `trend` share: how cases are matched, how a figure is shown,
// and the table of changes with their verdicts (report/verdict_rules.hpp judges them).

// A case's name, by which two runs' results are matched: transport, mode, direction, size,
// streams, rate, a fleet row's pair and (with_impl) who ran each side. Made safe for a terminal:
// the files may be anyone's.
std::string case_key(const report::case_result &r, bool with_impl = true);

// A figure as the run's table shows it: its name with the unit, and the factor from the file's
// base unit (B/s to MB/s, ns to µs).
struct figure_view {
    std::string label;
    double scale;
};
figure_view view_of(const std::string &figure);
// Four significant digits, never in e-notation.
std::string figure_text(double v);

// Each figure both results have, with the samples of each (a file's repetitions, or the one
// value), as changes to judge; ab appends its rounds to the same.
std::map<std::string, std::vector<double>> figure_samples(const report::case_result &r);

// What differs between the machines (or one machine at two times) of two runs that moves
// figures: CPU, kernel, governor, host, cores, load, and the noise sources `ipchost system` reads.
std::vector<std::string> condition_differences(const report::run_report &base,
                                               const report::run_report &next);

std::string change_table_header();
std::string change_row_text(const report::figure_change &c);
nlohmann::json change_row_json(const report::figure_change &c);
// "pipe.fifo ... MB/s: 1020.0 -> 510.0 (-50.0 %, 95 % interval -51.2 to -48.9 %)"
std::string change_line(const report::figure_change &c);

// The gate's verdict on stderr: the summary and the figures that decided it.
int report_gate(const char *command, const std::vector<report::figure_change> &changes,
                const report::gate_outcome &outcome);

}  // namespace ipcbench::cli
