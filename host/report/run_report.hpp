#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/case_result.hpp"
#include "model/case_settings.hpp"
#include "platform/machine_conditions.hpp"
#include "platform/system_info.hpp"

namespace ipcbench::report {

// Everything one invocation produced: where it ran, how, and each case.
struct run_report {
    platform::system_info environment;
    // What moved figures on this machine over the run (steal, busy other processes...):
    // `ipchost system`'s conditions; sample_s 0 when not sampled (a fleet, a JSON Lines stream).
    platform::machine_conditions conditions;
    std::string started_at;  // ISO 8601, UTC
    std::string command_line;
    // What every case started from (the command line's defaults); each result has its own.
    model::case_settings defaults;
    int repeat = 1;        // with precision: the most repetitions a case had
    double precision = 0;  // --precision: the share each case's median was pinned to; 0 none
    std::string peer;      // --peer: the agent that ran the server side; "" for local runs
    std::string from;      // --from: the agent that ran the client side; "" when this host did
    // --label KEY=VALUE of a run (commit=abc123, night=42): what `ipchost trend` names a run by.
    std::map<std::string, std::string> labels;
    std::vector<case_result> results;
    bool per_stream_list = false;  // --per-stream: JSON lists every stream, however many
};

}  // namespace ipcbench::report
