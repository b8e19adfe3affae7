#include "platform/cpu_affinity.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>

#include "platform/os_calls.hpp"

namespace ipcbench::platform {

std::string pin_process_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (IPCBENCH_OS_CALL(sched_setaffinity)(0, sizeof set, &set) != 0)
        return "cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno);
    return "";
}

int usable_cpu_count() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (IPCBENCH_OS_CALL(sched_getaffinity)(0, sizeof set, &set) != 0) return 1;
    return CPU_COUNT(&set);
}

}  // namespace ipcbench::platform
