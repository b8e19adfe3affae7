#pragma once

#include <string>

namespace ipcbench::platform {

// Pins the calling process (all its threads) to one CPU. Returns "" or why it failed.
std::string pin_process_to_cpu(int cpu);
// Number of CPUs this process may run on.
int usable_cpu_count();

}  // namespace ipcbench::platform
