#include "platform/process_usage.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::platform {

std::optional<process_usage> read_process_usage(long pid) {
    const std::string dir = "/proc/" + std::to_string(pid);
    std::ifstream stat(dir + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return std::nullopt;
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; fields >> field; ++i) {  // field 3 is the state
        if (i == 14) utime = std::stoull(field);
        if (i == 15) {
            stime = std::stoull(field);
            break;
        }
    }
    process_usage u;
    u.at_ns = now_ns();
    u.cpu_s = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
    std::ifstream status(dir + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) u.peak_rss_kib = std::stoll(line.substr(6));
    return u;
}

}  // namespace ipcbench::platform
