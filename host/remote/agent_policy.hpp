#pragma once

#include <string>

#include "plugin/transport_info.hpp"

namespace ipcbench::remote {

// What a worker started by `ipchost serve` may do for a network client. The client names a
// transport by id only: the worker finds it in the agent's own plugin folders (never a library
// path from the wire), and it must be able to cross hosts. Every address the client hands the
// worker, to bind as creator or to reach as connector, must be a numeric network address
// HOST:PORT or [V6]:PORT: nothing that names a file, a pipe or a process. Each check throws
// std::runtime_error with the reason, which goes back to the client as an error frame.
void check_agent_transport(const plugin::transport_info &transport);
// `bind`: the creator's listening address, where port 0 (any free port) is allowed.
void check_agent_address(const std::string &address, bool bind);

}  // namespace ipcbench::remote
