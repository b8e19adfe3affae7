#include "model/plausibility.hpp"

#include <fmt/format.h>
#include <cmath>

namespace ipcbench::model {
namespace {

// "" when v is a finite, non-negative figure no larger than `most`, else why not.
std::string figure_problem(const char *name, double v, double most) {
    if (!std::isfinite(v)) return fmt::format("{} is {}", name, v);
    if (v < 0) return fmt::format("{} is negative ({:g})", name, v);
    if (v > most)
        return fmt::format("{} of {:g} is beyond what any link or memory carries", name, v);
    return "";
}

std::string latency_problem(const latency_figures &l) {
    const std::uint64_t order[] = {l.min, l.p50, l.p90, l.p99, l.p999, l.p9999, l.max};
    for (std::size_t i = 1; i < sizeof order / sizeof order[0]; ++i)
        if (order[i] < order[i - 1]) return "the latency percentiles are out of order";
    if (!std::isfinite(l.mean) || l.mean < 0) return fmt::format("the mean latency is {}", l.mean);
    return "";
}

std::string side_problem(const char *side, const process_figures &p) {
    const double cores = 65536 * 100.0;
    for (auto [name, v] :
         {std::pair{"CPU %", p.cpu_percent}, std::pair{"CPU user s", p.cpu_user_s},
          std::pair{"CPU system s", p.cpu_sys_s}, std::pair{"CPU per MB", p.cpu_us_per_mb}})
        if (std::string why = figure_problem(name, v, name[4] == '%' ? cores : 1e15); !why.empty())
            return fmt::format("the {}'s {}", side, why);
    if (p.max_rss_kib < 0) return fmt::format("the {}'s peak RSS is negative", side);
    return "";
}

}  // namespace

std::string implausible_figures(const case_result &r) {
    if (!r.ok()) return "";
    if (std::string why = figure_problem("the measured window", r.duration_s, 1e9); !why.empty())
        return why;
    if (r.throughput) {
        if (std::string why = figure_problem("throughput (B/s)", r.throughput->bytes_per_sec,
                                             max_plausible_bytes_per_sec);
            !why.empty())
            return why;
        if (std::string why =
                figure_problem("the message rate (per s)", r.throughput->messages_per_sec,
                               max_plausible_messages_per_sec);
            !why.empty())
            return why;
    }
    if (r.latency)
        if (std::string why = latency_problem(*r.latency); !why.empty()) return why;
    for (const auto &[side, p] :
         {std::pair{"sender", &r.sender}, std::pair{"receiver", &r.receiver}})
        if (std::string why = side_problem(side, *p); !why.empty()) return why;
    return "";
}

void mark_implausible(std::vector<case_result> &results, const std::string &source) {
    for (auto &r : results)
        if (std::string why = implausible_figures(r); !why.empty()) {
            r.status = case_status::failed;
            r.error = fmt::format("impossible figures from {}: {}; not reported as measured",
                                  source, why);
        }
}

}  // namespace ipcbench::model
