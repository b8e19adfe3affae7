#pragma once

#include <filesystem>
#include <string>

#include "remote/agent_labels.hpp"
#include "remote/agent_policy.hpp"
#include "remote/tcp_endpoint.hpp"

namespace ipcbench::remote {

struct serve_options {
    host_port bind{"127.0.0.1", 7451};
    std::string token;        // empty: one is generated (unless insecure)
    bool insecure = false;    // run without any token: anyone who reaches the port may run
    bool allow_root = false;  // serve although running as root
    bool once = false;        // exit when the first client says its run is over
    int max_sessions = 1;     // sessions at once; one more authenticated client is "busy"
    // Sessions at once for one client address (0: half of max_sessions, rounded up): a client
    // cannot take every session.
    int max_sessions_per_client = 0;
    bool peer_runs = true;       // sessions may run cases against other agents (peer clients)
    double idle_timeout_s = 10;  // a silent client is dropped (the handshake gets at most 5 s)
    std::filesystem::path token_path;  // where a generated token is written (default: per user)
    operator_policy rules;             // where endpoints may go, which options, the memory budget
    agent_labels labels;               // --label: where this agent runs, told in every welcome
};

// `ipchost serve`: a network service, so it trusts nothing from the wire and never waits on a
// peer. Connections that have not authenticated are admitted fairly (remote/pending_handshakes:
// per source and in all, each with a short deadline and a 4 KiB hello); only a client whose
// hello carried the right token can start a session or be told "busy" (past --max-sessions,
// default 1). Sessions share nothing but the agent's loop: each has its own worker, run folder,
// outboxes, deadlines and policy, and ending one (its client gone, a hostile frame, its worker
// dead) closes only its own sockets and worker. A result a worker sends gets
// "agent_sessions": the most sessions running while it was measured. A session runs a fresh
// worker in agent mode (only cross-host transports the agent discovered itself) and relays its
// control channel both ways through bounded, non-blocking queues: every frame from the client
// is checked against the session's policy (remote/agent_policy: which messages, which
// addresses, which options, the memory budget) before the worker sees it; a client that floods,
// pipelines requests or stops reading its answers is cut with the reason. A session silent
// longer than the idle timeout with no request outstanding is ended, and so is one whose client
// takes none of its answers for that long. SIGINT/SIGTERM end the agent within a second. Logs
// every session. A hello with "session": "peer_client" (unless --no-peer-runs) gets a peer
// client instead of a worker (peer_client/peer_client.hpp): it takes only peer_case requests, each
// checked (remote/agent_policy: refuse_peer_case), and its peer_result answers get
// "agent_sessions" too. Returns the exit code.
int serve(const serve_options &options);

inline constexpr double max_handshake_s = 5;

}  // namespace ipcbench::remote
