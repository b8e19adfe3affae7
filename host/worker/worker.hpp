#pragma once

#include <string>

#include "platform/stream_socket.hpp"

namespace ipcbench::worker {

// The hidden `ipchost worker --control-fd N` process (the worker): one side of one case. It loads
// the plugin named by the orchestrator, opens its endpoints, runs one job and reports figures, all
// driven over the control channel. Returns the process exit code. `runtime_dir`, when set, replaces
// the run directory the orchestrator names (a worker started by a remote agent lives on another
// host, where that path means nothing). `agent_mode`: started by `ipchost serve` for a network
// client, so every request is checked against remote/agent_policy.hpp (transports by id from this
// host's folders, cross-host only, network addresses only).
int worker_main(platform::socket_handle control_fd, const std::string &runtime_dir = "",
                bool agent_mode = false);

}  // namespace ipcbench::worker
