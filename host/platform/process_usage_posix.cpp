#include "platform/process_usage.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "platform/monotonic_clock.hpp"

namespace ipcbench::platform {
namespace {

// "0-1,3" into {0, 1, 3}.
void add_cpu_list(const std::string &list, std::set<int> &cpus) {
    std::istringstream in(list);
    std::string range;
    while (std::getline(in, range, ',')) {
        const auto dash = range.find('-');
        try {
            const int first = std::stoi(range.substr(0, dash));
            const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
            for (int c = first; c <= last && c < 4096; ++c) cpus.insert(c);
        } catch (const std::exception &) {
            return;  // not a list: nothing more from this thread
        }
    }
}

std::vector<int> allowed_cpus_of(const std::string &dir) {
    std::set<int> cpus;
    std::error_code ec;
    for (const auto &task : std::filesystem::directory_iterator(dir + "/task", ec)) {
        std::ifstream status(task.path() / "status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind("Cpus_allowed_list:", 0) == 0) add_cpu_list(line.substr(18), cpus);
    }
    return {cpus.begin(), cpus.end()};
}

}  // namespace

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
    u.allowed_cpus = allowed_cpus_of(dir);
    return u;
}

}  // namespace ipcbench::platform
