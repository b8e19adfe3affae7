#pragma once

// The environment a kit's worker and its runtime-version probe start with. ipchost often runs as
// root, and a runtime reads code from its environment: LD_PRELOAD, PYTHONPATH's
// sitecustomize.py, JAVA_TOOL_OPTIONS' -javaagent:, DOTNET_STARTUP_HOOKS, MONO_PATH. So a kit
// never inherits ipchost's environment as it is: it gets a copy without every variable that
// names code or a place code is loaded from, with PATH cut to the folders that pass the kits'
// trust rules (kit/kit_trust.hpp) and with IPCBENCH_RUNTIME, the runtime ipchost checked. What
// was dropped is said by name, never by value (a value may be a secret): `ipchost --list
// --verbose` and every result's side (environment_dropped). The rules, in one place, are
// code_naming_reason below and docs/worker-protocol.md, "A kit's environment".

#include <optional>
#include <string>
#include <vector>

#include "kit/kit_manifest.hpp"

namespace ipcbench::kit {

struct kit_environment {
    std::vector<std::string> variables;  // NAME=VALUE, what the kit's processes start with
    std::vector<std::string> dropped;    // "LD_PRELOAD: the dynamic loader runs code it names"
};

// The variable IPCBENCH_RUNTIME: the absolute, checked runtime a launcher script executes.
inline constexpr const char *runtime_variable_name = "IPCBENCH_RUNTIME";

// Why a variable of this name (and value) never reaches a kit, or "" when it may.
std::string code_naming_reason(const std::string &name, const std::string &value);

// The kit's environment from ipchost's (`from`, NAME=VALUE entries): `runtime` is the checked
// runtime's absolute path ("" when the kit names none).
kit_environment environment_for_kit(const std::vector<std::string> &from, const kit_manifest &m,
                                    const std::string &runtime);

// The value of `name` in NAME=VALUE entries.
std::optional<std::string> environment_value(const std::vector<std::string> &environment,
                                             const std::string &name);

}  // namespace ipcbench::kit
