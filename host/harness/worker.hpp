#pragma once

namespace ipcbench::harness {

// The hidden `ipchost peer --control-fd N` process: one side of one case. It loads the plugin
// named by the orchestrator, opens its endpoints, runs one job and reports figures, all driven
// over the control channel. Returns the process exit code.
int worker_main(int control_fd);

}  // namespace ipcbench::harness
