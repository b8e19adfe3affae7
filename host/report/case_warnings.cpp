#include "report/case_warnings.hpp"

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

void warn_about_missed_rate(case_result &r) {
    if (!r.ok() || !r.throughput || r.settings.rate_per_s <= 0 ||
        !r.is(model::measure_mode::throughput))
        return;
    const double asked = r.settings.rate_per_s * r.settings.streams;
    const double got = r.throughput->messages_per_sec;
    if (got >= missed_rate_share * asked) return;
    r.warnings.push_back(fmt::format(
        "paced at {:.0f} messages/s, the receiver got {:.0f} ({:.1f}%): the sender could not keep "
        "the pace or the receiver fell behind, so the one-way latency is of a lighter load than "
        "asked (a lower --rate or fewer --streams is one the pair can carry)",
        asked, got, got / asked * 100));
}

}  // namespace ipcbench::report
