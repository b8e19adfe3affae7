#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace ipcbench::model {

// One live --interval report: what the receivers (pingers) counted in it. The reports of a case
// add up to its whole run; the last one may be shorter than the interval.
struct interval_figures {
    double end_s = 0;    // since the receiver's timed window began (after the warm-up)
    double seconds = 0;  // the interval's length
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::uint64_t lost = 0;
};

void to_json(nlohmann::json &out, const interval_figures &i);
void from_json(const nlohmann::json &in, interval_figures &i);

}  // namespace ipcbench::model
