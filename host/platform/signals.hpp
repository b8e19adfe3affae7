#pragma once

#include <string>

namespace ipcbench::platform {

// SIGINT/SIGTERM set a flag instead of killing the process, so a run can stop its workers, remove
// IPC objects and print what it measured. SIGPIPE is ignored: a closed peer is an error code.
void install_interrupt_handlers();
bool interrupted();
// What interrupted: "signal 2 (SIGINT)", "Ctrl+C"; "" if nothing did.
std::string interrupt_name();

// Processes that run plugin code ignore SIGPIPE.
void ignore_sigpipe();

}  // namespace ipcbench::platform
