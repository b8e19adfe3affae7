#pragma once

#include <map>
#include <string>
#include <vector>

#include "remote/agent_client.hpp"

namespace ipcbench::cli {

// One agent of `ipchost fleet`: where it serves and the labels the list gave it (zone=a,
// node=n1), which every row it takes part in carries.
struct fleet_agent {
    remote::agent_address agent;
    std::map<std::string, std::string> labels;  // the list's, then the agent's own (--label)
    std::string name() const { return agent.address.text(); }
};

// The fleet's agents from --agent entries and the lines of --agents FILE, in order. An entry is
// `HOST:PORT [KEY=VALUE ...]` (numeric address, default port 7451), or `dns:NAME:PORT [...]`:
// every address the name resolves to, one agent each (a headless Service's pods). In a file,
// blank lines and `#` comments are skipped; a `file` that starts with dns: is such an entry itself
// (--agents dns:ipcbench-agents:7451, a Kubernetes headless Service). Throws usage_error naming the
// entry (the file and line) and what is wrong: a bad address, a label without '=', a name that does
// not resolve, an agent listed twice, fewer than two agents. Every agent gets `token`.
std::vector<fleet_agent> fleet_agents(const std::vector<std::string> &entries,
                                      const std::string &file, const std::string &token);

}  // namespace ipcbench::cli
