#include <map>
#include <string>

#include "platform/isolated_calls.hpp"

namespace ipcbench::platform {
namespace {

// Filled during static initialisation, read after it: no lock needed.
std::map<std::string, isolated_work> &tasks() {
    static std::map<std::string, isolated_work> registered;
    return registered;
}

}  // namespace

isolated_task::isolated_task(const char *name, isolated_work work) {
    tasks()[name] = work;
}

isolated_work find_isolated_task(const std::string &name) {
    const auto it = tasks().find(name);
    return it == tasks().end() ? nullptr : it->second;
}

}  // namespace ipcbench::platform
