#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ipcbench::test {

// Checks `value` against the JSON Schema subset docs/result.schema.json uses: type (one or a
// list; "integer" and "number" as JSON Schema means them), enum, properties, required,
// additionalProperties (false or a schema), items, anyOf and local "$ref": "#/$defs/NAME".
// Returns one line per problem, each starting with the JSON pointer of the offending value.
std::vector<std::string> schema_problems(const nlohmann::json &schema, const nlohmann::json &value);

}  // namespace ipcbench::test
