#pragma once

#include <string>
#include <vector>

namespace ipcbench::platform {

// Another process that used CPU while the conditions were sampled.
struct busy_process {
    int pid = 0;
    std::string name;  // its comm, untrusted (any user names their process)
    double cpu_percent = 0;
};

// What on this machine makes a figure move between runs, read and never changed (pyperf's
// `system show`): "" or -1 where the system does not say. `ipchost system` shows it with advice;
// every result records it (report/run_report.hpp, environment).
struct machine_conditions {
    std::string governor;       // cpufreq governor of each CPU that has one, "performance" when all
                                // agree, "" without cpufreq (a VM: the hypervisor sets it)
    std::string turbo;          // "on", "off" or "" (no intel_pstate or cpufreq boost switch)
    std::string smt;            // "on", "off", "notsupported" (/sys/devices/system/cpu/smt)
    std::string smt_siblings;   // "0,4 1,5": CPUs sharing a core, "" when none do
    std::string isolated_cpus;  // isolcpus= ("" none)
    std::string nohz_full;      // nohz_full= ("" none)
    std::string virtualization;  // "", or the hypervisor's vendor, or "hypervisor" (CPU flag)
    double steal_percent = -1;   // CPU time a hypervisor gave another guest, over the sample
    std::vector<double> interrupts_per_s;  // by CPU, over the sample
    bool irqbalance = false;               // irqbalance moves interrupts between CPUs
    int aslr = -1;                         // kernel.randomize_va_space: 0 off, 1, 2 full
    double load_average_1m = -1;
    unsigned cpus = 0;
    std::vector<busy_process> busiest;  // other processes over 5 % of a CPU, busiest first
    double sample_s = 0;                // how long the rates above were sampled
};

// The counters the rates above are made of, at one moment.
struct condition_counters {
    double total_ticks = 0, steal_ticks = 0;
    std::vector<double> interrupts;       // by CPU
    std::vector<busy_process> processes;  // cpu_percent holds the process's CPU ticks so far
    double at_s = 0;                      // a monotonic clock
};

// The conditions over a span: the static ones and the counters when made, the rates when
// finished (a run's conditions: made at its start, finished at its end). `root` prefixes every
// /proc and /sys path (tests give a tree of their own).
class conditions_sampler {
public:
    explicit conditions_sampler(std::string root = "");
    // The conditions with the rates since construction; processes whose pid is in `ours`
    // (ipchost's own workers) are not "other".
    machine_conditions finish(const std::vector<int> &ours = {}) const;

private:
    std::string root_;
    machine_conditions static_;
    condition_counters start_;
};

// `ipchost system`: the conditions sampled over `sample_s` seconds.
machine_conditions read_machine_conditions(double sample_s, const std::string &root = "");

}  // namespace ipcbench::platform
