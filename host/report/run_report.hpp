#pragma once

#include <string>
#include <vector>

#include "platform/system_info.hpp"
#include "report/case_result.hpp"

namespace ipcbench::report {

// Everything one invocation produced: where it ran, how, and each case.
struct run_report {
    platform::system_info environment;
    std::string started_at;  // ISO 8601, UTC
    std::string command_line;
    double duration_s = 0;
    double warmup_s = 0;
    std::uint64_t count = 0;
    int repeat = 1;
    std::string peer;  // --peer: the agent that ran the server side; "" for local runs
    std::vector<case_result> results;
};

}  // namespace ipcbench::report
