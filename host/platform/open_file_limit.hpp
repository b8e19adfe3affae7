#pragma once

#include <cstdint>
#include <string>

namespace ipcbench::platform {

// Makes sure this process (and the workers it starts, which inherit it) may hold `needed`
// descriptors: raises RLIMIT_NOFILE's soft limit, and the hard one where allowed (root, up to
// fs.nr_open). Returns "" or what stops it, naming the limit and the fix.
std::string ensure_open_files(std::uint64_t needed);

}  // namespace ipcbench::platform
