#include "platform/resource_usage.hpp"

#include <sys/resource.h>

namespace ipcbench::platform {

resource_usage sample_resource_usage() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    resource_usage usage;
    usage.cpu_user_s = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    usage.cpu_sys_s = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
    usage.max_rss_kib = ru.ru_maxrss;  // Linux reports KiB
    usage.voluntary_ctx_switches = ru.ru_nvcsw;
    usage.involuntary_ctx_switches = ru.ru_nivcsw;
    return usage;
}

resource_usage usage_between(const resource_usage &before, const resource_usage &after) {
    resource_usage delta;
    delta.cpu_user_s = after.cpu_user_s - before.cpu_user_s;
    delta.cpu_sys_s = after.cpu_sys_s - before.cpu_sys_s;
    delta.max_rss_kib = after.max_rss_kib;
    delta.voluntary_ctx_switches = after.voluntary_ctx_switches - before.voluntary_ctx_switches;
    delta.involuntary_ctx_switches =
        after.involuntary_ctx_switches - before.involuntary_ctx_switches;
    return delta;
}

}  // namespace ipcbench::platform
