#include "conformance/shared_memory_objects.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ipcbench::conformance {

std::set<std::string> shared_memory_objects() {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(".org.chromium.", 0) != 0) out.insert("/dev/shm/" + name);
    }
    std::ifstream sysv("/proc/sysvipc/shm");
    std::string line;
    std::getline(sysv, line);  // the header
    while (std::getline(sysv, line)) {
        std::istringstream fields(line);
        std::string key, id;
        if (fields >> key >> id) out.insert("sysv-shm:" + id);
    }
    return out;
}

}  // namespace ipcbench::conformance
