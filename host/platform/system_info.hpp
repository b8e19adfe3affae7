#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ipcbench::platform {

struct system_info {
    std::string os;         // "Linux"
    std::string kernel;     // "6.1.0-18-amd64"
    std::string machine;    // "x86_64"
    std::string cpu_model;  // "AMD EPYC ..." or "" when unreadable
    std::string governor;   // cpufreq governor of CPU 0, "" when unreadable
    std::string hostname;
    unsigned cores = 0;
    double load_average_1m = -1;  // at start; -1 when unreadable
};

system_info read_system_info();

// Whether standard error is a terminal (for progress lines).
bool stderr_is_terminal();

// The value of the environment variable `name`, removed from this process's environment so that
// no child (a worker, a plugin probe, a kit) inherits it: a secret handed over by the
// environment (a Kubernetes Secret) stays in the process that reads it. nullopt when unset.
std::optional<std::string> take_environment_variable(const std::string &name);

// Sets `name` in this process's environment, which the processes it starts inherit; an empty
// value removes it.
void set_environment_variable(const std::string &name, const std::string &value);

// This process's environment as NAME=VALUE entries, in its order (for a child that starts with
// an environment ipchost builds: kit/kit_environment.hpp).
std::vector<std::string> environment_variables();

}  // namespace ipcbench::platform
