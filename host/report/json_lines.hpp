#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_report.hpp"

namespace ipcbench::report {

// --format jsonl: the run as a stream of JSON objects, one a line, each written as it happens,
// for a dashboard or a script following a long run (as iperf3's --json-stream). Every line has
// an "event" (docs/json-schema.md, docs/events.schema.json):
//   start     the document's header (schema_version, environment, settings...), first
//   interval  one --interval report of the case running now: its transport, mode, size,
//             direction and repetition, and the figures of "intervals" in a result
//   result    one finished case: exactly an element of the JSON document's "results"
//   end       last: how many results, and whether the run was interrupted
// The lines of a run put together (the start line's fields and the results) are the JSON
// document --format json writes.
std::string start_line(const run_report &report);
std::string interval_line(const case_result &what, int repetition, const interval_figures &i);
std::string result_line(const case_result &r, bool per_stream_list);
std::string end_line(std::size_t results, bool interrupted);

// A whole report as these lines (ipchost report FILE --format jsonl).
std::string to_json_lines(const run_report &report);

}  // namespace ipcbench::report
