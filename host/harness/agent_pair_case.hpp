#pragma once

#include <vector>

#include "model/case_result.hpp"
#include "model/case_settings.hpp"
#include "plugin/transport_info.hpp"
#include "remote/agent_client.hpp"

namespace ipcbench::harness {

// Runs one case between two agents, driven from here (ipchost --from A --peer B, and each pair
// of `ipchost fleet`): the client side on `client_agent`, whose peer client runs it against
// `server_agent` as `ipchost --peer` would there (peer_client/peer_client.hpp), the server side on
// `server_agent`. Neither side runs here, so no figure is measured here: the results are the
// peer client's, read back as untrusted, with the client agent's own `agent_sessions` on the
// client side. Whatever fails (either agent unreachable or refusing, a wrong token, a case
// that fails over there, a late or malformed answer) is a failed result naming which agent and
// why. Ctrl+C here ends the session (the agents end the case), or, with
// `finish_when_interrupted` (a fleet's running round), lets the case finish first.
std::vector<report::case_result> run_case_between_agents(const plugin::transport_info &transport,
                                                         const model::case_settings &settings,
                                                         const remote::agent_address &client_agent,
                                                         const remote::agent_address &server_agent,
                                                         bool finish_when_interrupted = false);

}  // namespace ipcbench::harness
