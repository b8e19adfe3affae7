#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ipcbench::platform {

// Runs work(0), work(1), ... work(count - 1) in a forked child process, so that code which may
// crash or hang (a plugin's constructors and entry point) cannot take this process down. When
// the child dies or stalls longer than timeout_ms in one item, that item is marked and a new
// child carries on with the next. Returns, per item, "" or why it failed
// ("signal 11 (SIGSEGV)", "hung for more than 5 s").
std::vector<std::string> run_isolated(std::size_t count,
                                      const std::function<void(std::size_t)> &work, int timeout_ms);

}  // namespace ipcbench::platform
