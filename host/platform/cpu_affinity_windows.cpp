#include "platform/cpu_affinity.hpp"

#include "platform/windows_api.hpp"

#include <bitset>

namespace ipcbench::platform {

std::string pin_process_to_cpu(int cpu) {
    if (cpu < 0 || cpu >= 64)
        return "cannot pin to CPU " + std::to_string(cpu) +
               ": an affinity mask of one processor group holds CPUs 0 to 63";
    if (!SetProcessAffinityMask(GetCurrentProcess(), DWORD_PTR{1} << cpu))
        return "cannot pin to CPU " + std::to_string(cpu) + ": " + windows::last_error_text();
    return "";
}

int usable_cpu_count() {
    DWORD_PTR process = 0, system = 0;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &process, &system) || process == 0) return 1;
    return static_cast<int>(std::bitset<64>(process).count());
}

}  // namespace ipcbench::platform
