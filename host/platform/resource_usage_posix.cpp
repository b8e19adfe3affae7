#include "platform/resource_usage.hpp"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>

namespace ipcbench::platform {

namespace {

resource_usage sample(int who) {
    rusage ru{};
    getrusage(who, &ru);
    resource_usage usage;
    usage.cpu_user_s = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    usage.cpu_sys_s = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
    usage.max_rss_kib = ru.ru_maxrss;  // Linux reports KiB
    usage.voluntary_ctx_switches = ru.ru_nvcsw;
    usage.involuntary_ctx_switches = ru.ru_nivcsw;
    const int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < 64) usage.cpus_seen = std::uint64_t{1} << cpu;
    if (who != RUSAGE_SELF) {
        rusage self{};
        getrusage(RUSAGE_SELF, &self);
        usage.max_rss_kib = self.ru_maxrss;
    }
    return usage;
}

}  // namespace

resource_usage sample_resource_usage() {
    return sample(RUSAGE_SELF);
}

resource_usage sample_thread_usage() {
    return sample(RUSAGE_THREAD);
}

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
