#include "platform/machine_conditions.hpp"

#include <thread>

namespace ipcbench::platform {

// Windows keeps these in WMI and the power plan, which this build does not read: every
// condition is "not known" (docs/platforms.md), and `ipchost system` says so.
conditions_sampler::conditions_sampler(std::string root) : root_(std::move(root)) {
    static_.cpus = std::thread::hardware_concurrency();
}

machine_conditions conditions_sampler::finish(const std::vector<int> &) const {
    return static_;
}

machine_conditions read_machine_conditions(double, const std::string &root) {
    return conditions_sampler(root).finish();
}

}  // namespace ipcbench::platform
