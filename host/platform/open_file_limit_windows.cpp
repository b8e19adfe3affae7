#include "platform/open_file_limit.hpp"

namespace ipcbench::platform {

// Windows has no per-process descriptor limit of this kind (handles are bounded by memory).
std::string ensure_open_files(std::uint64_t) {
    return "";
}

}  // namespace ipcbench::platform
