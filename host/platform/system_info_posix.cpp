#include "platform/system_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

namespace ipcbench::platform {
namespace {

std::string first_line(const char *path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string cpu_model_from_cpuinfo() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto value = line.substr(colon + 1);
                auto start = value.find_first_not_of(' ');
                return start == std::string::npos ? "" : value.substr(start);
            }
        }
    }
    return "";
}

}  // namespace

system_info read_system_info() {
    system_info info;
    utsname uts{};
    if (uname(&uts) == 0) {
        info.os = uts.sysname;
        info.kernel = uts.release;
        info.machine = uts.machine;
    }
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;
    info.cpu_model = cpu_model_from_cpuinfo();
    info.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    info.cores = std::thread::hardware_concurrency();
    double load[1];
    if (getloadavg(load, 1) == 1) info.load_average_1m = load[0];
    return info;
}

bool stderr_is_terminal() {
    return isatty(2) == 1;
}

void set_environment_variable(const std::string &name, const std::string &value) {
    if (value.empty())
        unsetenv(name.c_str());  // cleared, not set to ""
    else
        setenv(name.c_str(), value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe): set between runs
}

std::vector<std::string> environment_variables() {
    std::vector<std::string> out;
    for (char **e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
    return out;
}

std::optional<std::string> take_environment_variable(const std::string &name) {
    char *value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    std::string out = value;
    // getenv points into the block the process started with, which /proc/PID/environ shows to
    // the process's user for as long as it runs: the whole NAME=VALUE is wiped there, not only
    // dropped from environ.
    char *entry = value - name.size() - 1;
    const std::size_t length = name.size() + 1 + out.size();
    unsetenv(name.c_str());
    if (std::strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=')
        explicit_bzero(entry, length);
    return out;
}

}  // namespace ipcbench::platform
