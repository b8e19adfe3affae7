#pragma once

#include <nlohmann/json.hpp>

#include "report/run_report.hpp"

namespace ipcbench::report {

// The JSON document, schema_version 1 (docs/json-schema.md).
inline constexpr int json_schema_version = 1;

nlohmann::json to_json(const run_report &report);

}  // namespace ipcbench::report
