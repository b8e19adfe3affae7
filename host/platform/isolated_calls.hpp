#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ipcbench::platform {

// What one isolated item produced: the text work(i) returned, or why it did not return.
struct isolated_result {
    std::string failure;  // "" when work(i) returned; else "signal 11 (SIGSEGV)", "hung for..."
    std::string output;   // what work(i) returned
};

// Runs work(0) ... work(count - 1) in forked child processes, so code which may crash, hang or
// misbehave (a plugin's constructors, entry point or remove_address) cannot take this process
// down. Up to `parallel` children run at once, each on its own share of the items. A child runs
// in a session of its own (a plugin signalling its process group hits only the child), with
// stdin, stdout and stderr on /dev/null (nothing a plugin prints reaches ipchost's output), and
// dies with this process. When a child dies or one item takes longer than timeout_ms, that item
// is marked and a new child carries on with the next of its share. work must not touch this
// process's threads' state (locks held elsewhere): it runs after fork().
std::vector<isolated_result> run_isolated(std::size_t count,
                                          const std::function<std::string(std::size_t)> &work,
                                          int timeout_ms, int parallel = 1);

}  // namespace ipcbench::platform
