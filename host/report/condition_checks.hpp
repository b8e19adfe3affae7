#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/machine_conditions.hpp"

namespace ipcbench::report {

// One thing on the machine that can move a figure: what it is here, and what to change (empty
// when nothing: it is as a benchmark wants it, or not known).
struct condition_check {
    std::string name;    // "CPU frequency"
    std::string state;   // "performance", "none", "on; siblings 0,4 1,5"
    std::string advice;  // "cpupower frequency-set -g performance (root) ..."
};

// Every condition with its verdict, in a fixed order (`ipchost system`).
std::vector<condition_check> condition_checks(const platform::machine_conditions &m);

// The conditions that may have moved this run's figures, one short clause each ("steal 3.2%",
// "2 busy other processes"): empty when none did (the table's header, compare).
std::vector<std::string> condition_notes(const platform::machine_conditions &m);

// The conditions as a result file keeps them, and back (a file is untrusted: what is missing
// or of another type stays unknown).
nlohmann::json conditions_json(const platform::machine_conditions &m);
platform::machine_conditions conditions_from_json(const nlohmann::json &j);

}  // namespace ipcbench::report
