#include "platform/thread_placement.hpp"

#include "platform/windows_api.hpp"

namespace ipcbench::platform {

std::int64_t current_thread_id() {
    return static_cast<std::int64_t>(GetCurrentThreadId());
}

// Windows does not say which CPU another process's thread last ran on (only the calling thread
// can ask, GetCurrentProcessorNumber), so there is nothing to sample from outside: an empty
// list, which the harness reports as placement unknown. The workers' own samples
// (resource_usage::cpus_seen) still say where each side began and ended its timed loops.
std::vector<thread_placement> sample_threads(long, const std::vector<thread_placement> &, bool,
                                             std::size_t) {
    return {};
}

}  // namespace ipcbench::platform
