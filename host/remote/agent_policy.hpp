#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

#include "plugin/transport_info.hpp"
#include "remote/address_rules.hpp"

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

// Where one session's endpoints may go, decided by the agent, never by the client:
//   - a creator listens only on the address the client reached the agent by, on a port in
//     [first_port, last_port] (default 1024-65535: no privileged port unless the operator says
//     so with `ipchost serve --allow-ports`), or port 0 (any free port, checked once opened);
//   - a connector reaches only the client's own address, or a host the operator names with
//     `ipchost serve --allow-connect`;
//   - a transport option from the wire is taken only if the transport's allow list has it
//     (wire_options) or the operator added it (`--allow-option ID:KEY`): options that name an
//     address, a port, a path or a device (socket.tcp's bind) would override the above.
struct operator_policy {
    int first_port = 1024, last_port = 65535;
    std::vector<std::string> connect_hosts;                      // canonical numeric addresses
    std::vector<address_prefix> peer_networks;                   // --allow-peer: peer cases
    std::map<std::string, std::set<std::string>> extra_options;  // transport id -> keys
    // --allow-unbound ID: transports whose creators take whoever connects first (a plugin
    // without "ipcb.peer-binding/1"); every other creator serves only its client.
    std::set<std::string> unbound_transports;
    std::uint64_t memory_budget = 0;  // 0: model's agent default
};
struct address_policy {
    std::string local_host;   // canonical: what the client connected to
    std::string client_host;  // canonical: where the client connected from
    operator_policy operator_rules;
};

// The options a client may set for a built-in cross-host transport (none for any other).
const std::set<std::string> &wire_options(const std::string &transport_id);

// "" when the setup may go to the worker, else the reason (sent back to the client). Checks
// the shape of every field the agent relies on; the worker type-checks the rest.
std::string refuse_setup(const nlohmann::json &setup, const address_policy &policy);
// "" when every address a creator opened is one the policy lets it listen on.
std::string refuse_opened(const nlohmann::json &opened, const address_policy &policy);
// "" when the run job fits the agent's memory budget (and is a job the model accepts).
std::string refuse_run(const nlohmann::json &run, const address_policy &policy);

// "" when a peer case (control::peer_case_request) may go to the session's peer client: a
// numeric agent address the operator allows (--allow-peer, or --allow-connect; never an
// unspecified, link-local, multicast or broadcast one), no token from the wire, a port range,
// native workers only (an agent runs no kit for a network client), transport options as for a
// setup, and the memory budget.
std::string refuse_peer_case(const nlohmann::json &frame, const address_policy &policy);

// "" when every address an agent's creators opened (its `opened` answer) is on the host this
// side reached the agent by, with a port: a --peer client, here or an agent's peer client,
// connects its data endpoints only there, never where a (hostile) agent points it.
std::string refuse_peer_addresses(const std::vector<std::string> &addresses,
                                  const std::string &agent_host);

// What a connector's failed connect says to a network client: that it failed, never why (a
// refused port and a silent one must read the same, or the agent is a port scanner).
std::string connect_failure_text(const std::string &address);

}  // namespace ipcbench::remote
