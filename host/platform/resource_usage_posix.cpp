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

}  // namespace ipcbench::platform
