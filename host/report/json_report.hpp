#pragma once

#include <nlohmann/json.hpp>

#include "report/run_report.hpp"

namespace ipcbench::report {

// The JSON document, schema_version 1 (docs/json-schema.md), and back: `ipchost report` and
// `ipchost compare` read what a run wrote.
inline constexpr int json_schema_version = 1;

nlohmann::json to_json(const run_report &report);
// Throws std::runtime_error naming what is missing or of the wrong version.
run_report run_report_from_json(const nlohmann::json &doc);

}  // namespace ipcbench::report
