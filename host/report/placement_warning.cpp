#include "report/placement_warning.hpp"

#include <fmt/format.h>

namespace ipcbench::report {

void warn_about_placement(case_result &r) {
    if (!r.ok() || !r.placement || r.placement->same_cpu_share < shared_cpu_warning_share) return;
    const auto &pin = r.settings.affinity;
    if (pin.sender_cpu >= 0 && pin.sender_cpu == pin.receiver_cpu) return;  // asked for
    // Two mostly idle processes (a slow paced run) lose nothing by taking turns on one core.
    if (r.sender.cpu_percent + r.receiver.cpu_percent < busy_cpu_percent) return;
    const bool latency = r.is(model::measure_mode::latency);
    const char *a = latency ? "pinger" : "sender";
    const char *b = latency ? "ponger" : "receiver";
    r.warnings.push_back(fmt::format(
        "{} and {} ran on the same CPU for {:.0f}% of the timed window ({} moved {} times, {} "
        "{}): {}",
        a, b, r.placement->same_cpu_share * 100, a, r.placement->sender_migrations, b,
        r.placement->receiver_migrations, placement_advice));
}

}  // namespace ipcbench::report
