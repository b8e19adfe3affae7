#pragma once

#include <set>
#include <string>

namespace ipcbench::conformance {

// The shared-memory objects that outlive processes: names in /dev/shm and System V segments
// ("sysv-shm:<id>"). The crash checks compare them before and after a worker is killed.
// Chromium's own /dev/shm files (other programs, e.g. a concurrent HTML screenshot) are left out.
std::set<std::string> shared_memory_objects();

}  // namespace ipcbench::conformance
