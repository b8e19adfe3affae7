#include "platform/machine_conditions.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace ipcbench::platform {
namespace {

std::string first_line(const std::string &path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::vector<std::string> entries(const std::string &dir) {
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (const dirent *e = readdir(d)) out.emplace_back(e->d_name);
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool all_digits(const std::string &s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// cpu0, cpu1...: the numbers of the CPU directories.
std::vector<int> cpu_numbers(const std::string &root) {
    std::vector<int> out;
    for (const auto &e : entries(root + "/sys/devices/system/cpu"))
        if (e.size() > 3 && e.compare(0, 3, "cpu") == 0 && all_digits(e.substr(3)))
            out.push_back(std::atoi(e.c_str() + 3));
    std::sort(out.begin(), out.end());
    return out;
}

std::string governors(const std::string &root, const std::vector<int> &cpus) {
    std::set<std::string> seen;
    for (int cpu : cpus) {
        auto g = first_line(root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                            "/cpufreq/scaling_governor");
        if (!g.empty()) seen.insert(g);
    }
    std::string out;
    for (const auto &g : seen) out += (out.empty() ? "" : ", ") + g;
    return seen.size() > 1 ? "mixed: " + out : out;
}

std::string turbo(const std::string &root) {
    const auto no_turbo = first_line(root + "/sys/devices/system/cpu/intel_pstate/no_turbo");
    if (no_turbo == "1") return "off";
    if (no_turbo == "0") return "on";
    const auto boost = first_line(root + "/sys/devices/system/cpu/cpufreq/boost");
    if (boost == "1") return "on";
    if (boost == "0") return "off";
    return "";
}

void read_smt(const std::string &root, const std::vector<int> &cpus, machine_conditions &m) {
    const auto active = first_line(root + "/sys/devices/system/cpu/smt/active");
    const auto control = first_line(root + "/sys/devices/system/cpu/smt/control");
    m.smt = active == "1"               ? "on"
            : control == "notsupported" ? "notsupported"
            : active == "0"             ? "off"
                                        : "";
    std::set<std::string> groups;
    for (int cpu : cpus) {
        auto g = first_line(root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                            "/topology/thread_siblings_list");
        if (g.find_first_of(",-") != std::string::npos) groups.insert(g);
    }
    for (const auto &g : groups) m.smt_siblings += (m.smt_siblings.empty() ? "" : " ") + g;
}

std::string virtualization(const std::string &root) {
    for (const char *file : {"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name"}) {
        auto v = first_line(root + file);
        for (const char *known : {"QEMU", "KVM", "VMware", "Microsoft Corporation", "Xen",
                                  "Amazon EC2", "Google", "innotek GmbH", "Parallels", "OpenStack"})
            if (v.find(known) != std::string::npos) return v;
    }
    auto xen = first_line(root + "/sys/hypervisor/type");
    if (!xen.empty()) return xen;
    std::ifstream in(root + "/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0)
            return line.find(" hypervisor") != std::string::npos ? "hypervisor" : "";
    return "";
}

void read_cpu_times(const std::string &root, condition_counters &c) {
    std::istringstream line(first_line(root + "/proc/stat"));
    std::string cpu;
    line >> cpu;
    double v = 0;
    for (int i = 0; line >> v; ++i) {
        if (i < 8) c.total_ticks += v;  // user .. steal (guest time is in user already)
        if (i == 7) c.steal_ticks = v;
    }
}

void read_interrupts(const std::string &root, condition_counters &c) {
    std::ifstream in(root + "/proc/interrupts");
    std::string header;
    std::getline(in, header);
    std::size_t columns = 0;
    for (std::istringstream h(header); h >> header;) ++columns;
    c.interrupts.assign(columns, 0);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string label;
        fields >> label;
        for (std::size_t cpu = 0; cpu < columns; ++cpu) {
            std::string n;
            if (!(fields >> n) || !all_digits(n)) break;
            c.interrupts[cpu] += std::strtod(n.c_str(), nullptr);
        }
    }
}

void read_processes(const std::string &root, condition_counters &c) {
    for (const auto &pid : entries(root + "/proc")) {
        if (!all_digits(pid)) continue;
        const auto stat = first_line(root + "/proc/" + pid + "/stat");
        const auto open = stat.find('('), close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close < open ||
            close + 2 > stat.size())
            continue;
        std::istringstream rest(stat.substr(close + 2));
        std::string field;
        double ticks = 0;
        for (int i = 0; i < 13 && rest >> field; ++i)
            if (i == 11 || i == 12) ticks += std::strtod(field.c_str(), nullptr);  // utime, stime
        c.processes.push_back(
            {std::atoi(pid.c_str()), stat.substr(open + 1, close - open - 1), ticks});
    }
}

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

condition_counters read_counters(const std::string &root) {
    condition_counters c;
    c.at_s = now_s();
    read_cpu_times(root, c);
    read_interrupts(root, c);
    read_processes(root, c);
    return c;
}

void rates(const condition_counters &a, const condition_counters &b, const std::vector<int> &ours,
           machine_conditions &m) {
    const double seconds = b.at_s - a.at_s;
    m.sample_s = seconds;
    if (seconds <= 0) return;
    const double total = b.total_ticks - a.total_ticks;
    if (total > 0) m.steal_percent = (b.steal_ticks - a.steal_ticks) / total * 100;
    for (std::size_t cpu = 0; cpu < b.interrupts.size() && cpu < a.interrupts.size(); ++cpu)
        m.interrupts_per_s.push_back((b.interrupts[cpu] - a.interrupts[cpu]) / seconds);
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    std::map<int, double> before;
    for (const auto &p : a.processes) before[p.pid] = p.cpu_percent;
    for (const auto &p : b.processes) {
        const auto was = before.find(p.pid);
        if (was == before.end() || p.pid == getpid() ||
            std::find(ours.begin(), ours.end(), p.pid) != ours.end())
            continue;
        const double percent = (p.cpu_percent - was->second) / tick / seconds * 100;
        if (percent >= 5) m.busiest.push_back({p.pid, p.name, percent});
    }
    std::sort(m.busiest.begin(), m.busiest.end(), [](const busy_process &x, const busy_process &y) {
        return x.cpu_percent > y.cpu_percent;
    });
    if (m.busiest.size() > 5) m.busiest.resize(5);
}

machine_conditions static_conditions(const std::string &root, const condition_counters &now) {
    machine_conditions m;
    const auto cpus = cpu_numbers(root);
    m.cpus = static_cast<unsigned>(cpus.size());
    m.governor = governors(root, cpus);
    m.turbo = turbo(root);
    read_smt(root, cpus, m);
    m.isolated_cpus = first_line(root + "/sys/devices/system/cpu/isolated");
    m.nohz_full = first_line(root + "/sys/devices/system/cpu/nohz_full");
    if (m.nohz_full == "(null)") m.nohz_full.clear();
    m.virtualization = virtualization(root);
    const auto aslr = first_line(root + "/proc/sys/kernel/randomize_va_space");
    if (all_digits(aslr)) m.aslr = std::atoi(aslr.c_str());
    std::istringstream load(first_line(root + "/proc/loadavg"));
    load >> m.load_average_1m;
    for (const auto &p : now.processes) m.irqbalance = m.irqbalance || p.name == "irqbalance";
    return m;
}

}  // namespace

conditions_sampler::conditions_sampler(std::string root)
    : root_(std::move(root)), start_(read_counters(root_)) {
    static_ = static_conditions(root_, start_);
}

machine_conditions conditions_sampler::finish(const std::vector<int> &ours) const {
    machine_conditions m = static_;
    rates(start_, read_counters(root_), ours, m);
    return m;
}

machine_conditions read_machine_conditions(double sample_s, const std::string &root) {
    const conditions_sampler sampler(root);
    std::this_thread::sleep_for(std::chrono::duration<double>(sample_s));
    return sampler.finish();
}

}  // namespace ipcbench::platform
