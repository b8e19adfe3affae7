#include "platform/resource_usage.hpp"

#include <algorithm>

namespace ipcbench::platform {

void accumulate(resource_usage &a, const resource_usage &b) {
    a.cpu_user_s += b.cpu_user_s;
    a.cpu_sys_s += b.cpu_sys_s;
    a.max_rss_kib = std::max(a.max_rss_kib, b.max_rss_kib);
    a.voluntary_ctx_switches += b.voluntary_ctx_switches;
    a.involuntary_ctx_switches += b.involuntary_ctx_switches;
    a.cpus_seen |= b.cpus_seen;
}

resource_usage usage_between(const resource_usage &before, const resource_usage &after) {
    resource_usage delta;
    delta.cpu_user_s = after.cpu_user_s - before.cpu_user_s;
    delta.cpu_sys_s = after.cpu_sys_s - before.cpu_sys_s;
    delta.max_rss_kib = after.max_rss_kib;
    delta.voluntary_ctx_switches = after.voluntary_ctx_switches - before.voluntary_ctx_switches;
    delta.involuntary_ctx_switches =
        after.involuntary_ctx_switches - before.involuntary_ctx_switches;
    delta.cpus_seen = before.cpus_seen | after.cpus_seen;
    return delta;
}

}  // namespace ipcbench::platform
