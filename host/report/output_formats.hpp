#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/run_report.hpp"
#include "report/table_report.hpp"

namespace ipcbench::report {

// Every way a run can be written out, in one list: the command line accepts these names, the
// help and its errors list them, and render() dispatches on them.
enum class output_format { table, markdown, csv, json, jsonl, html };

struct format_entry {
    output_format format;
    const char *name;
    bool for_runs;  // --format of a run; html is only for `ipchost report`
};
const std::vector<format_entry> &output_formats();

std::optional<output_format> output_format_from(const std::string &name);
const char *to_string(output_format f);
// "table, markdown, csv or json" (the formats of runs), for help and errors.
std::string run_format_names();

// The whole report in that format; `layout` says which columns the table and Markdown show.
std::string render(const run_report &report, output_format format, const table_layout &layout = {});

}  // namespace ipcbench::report
