#pragma once

#include <nlohmann/json.hpp>

#include "report/run_report.hpp"

namespace ipcbench::report {

// The JSON document, schema_version 1 (docs/json-schema.md), and back: `ipchost report` and
// `ipchost compare` read what a run wrote.
inline constexpr int json_schema_version = 1;

nlohmann::json to_json(const run_report &report);
// Its parts: the document without "results", one element of "results", one element of a
// result's "intervals" (--format jsonl writes them as the run goes: report/json_lines.hpp).
nlohmann::json header_json(const run_report &report);
nlohmann::json result_to_json(const case_result &r, bool per_stream_list);
nlohmann::json interval_to_json(const interval_figures &i);
// Now, as "started_at" is written: "2026-12-03T18:37:06Z".
std::string utc_now();
// Throws std::runtime_error naming what is missing or of the wrong version.
run_report run_report_from_json(const nlohmann::json &doc);

}  // namespace ipcbench::report
