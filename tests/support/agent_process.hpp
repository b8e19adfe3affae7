#pragma once

// An `ipchost serve` agent for a test, and the raw frames a client (or an attacker) exchanges
// with it. Everything stays on loopback addresses (127.0.0.0/8).
#include <sys/types.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "remote/agent_handshake.hpp"

namespace ipcbench::test {

using remote_transcript = remote::handshake_transcript;

// A TCP port nobody listens on now on 127.0.0.1 (the kernel's pick).
int free_port();

// An `ipchost serve` in the background for one test (with --allow-root when the tests run as
// root, as in CI), with extra environment variables; SIGTERM and reaped by the destructor.
class agent {
public:
    explicit agent(std::vector<std::string> args, std::map<std::string, std::string> env = {});
    ~agent();
    agent(const agent &) = delete;
    agent &operator=(const agent &) = delete;

    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    bool reachable() const;
    // A connection to the agent from `source` (a loopback address: 127.0.0.2 is another host
    // to the agent), with a 5 s receive timeout; -1 when refused.
    int connect_raw(const std::string &source = "") const;
    // Sends raw bytes, returns everything the agent answers until it closes (or 5 s pass).
    std::string exchange(const std::string &bytes) const;
    // A whole handshake of protocol 3 on a fresh connection (send_hello_and_auth), then closed:
    // the agent's refusal of the hello, or its answer to the auth (welcome, goodbye, error).
    nlohmann::json authenticate(const std::string &token,
                                const nlohmann::json &extra = nlohmann::json::object(),
                                const std::string &source = "") const;
    // SIGTERM now; the seconds until it exited (reaped), or -1 if it did not within timeout_s.
    double stop(double timeout_s);

private:
    pid_t pid_ = -1;
    int port_ = 0;
};

// The live processes whose parent is pid now (zombies not counted).
std::vector<int> children_of(pid_t pid);

// A control-channel frame: 4-byte big-endian length, then the JSON.
std::string frame(const nlohmann::json &message);
// The agent's answer, a single frame.
nlohmann::json answer(const std::string &reply);
// Reads one frame within the socket's receive timeout (5 s); a null json when the agent closed
// (or sent what is no frame). No Catch assertion inside: safe on a thread of the test's own.
nlohmann::json read_frame(int fd);

// The seals of an agent session on fd (agent protocol 3, control/frame_seal.hpp), as a client
// (after send_hello_and_auth) or a fake agent (answer_as_agent) holds them: frame_on seals what
// is sent on fd, read_frame opens what arrives (an unsealed frame, a refusal, is read as is).
void seal_fd(int fd, const std::string &send_key, const std::string &receive_key);
void forget_fd(int fd);
std::string frame_on(int fd, const nlohmann::json &message);
// A fake agent holding `token`, after a client's hello on fd: its challenge (a good proof for
// the hello's transcript), the client's auth read, fd sealed as the agent's. Returns the auth.
nlohmann::json answer_as_agent(int fd, const nlohmann::json &hello, const std::string &token);
// The transcript a hello asks for (its nonce, session, done and dialled), with `agent_nonce`.
remote_transcript transcript_of(const nlohmann::json &hello, const std::string &agent_nonce);

// A client's side of the agent handshake (protocol 3, remote/agent_handshake.hpp) on a
// connected fd: a hello with a fresh nonce and `extra` fields ({"session": "roll_call"},
// {"done": true}, or fields that replace the hello's own), then, when the agent answers with a
// challenge, the auth of a client holding `token` (sent whatever the agent's proof, so a test
// sees the agent judge it). Returns the agent's answer to the hello: the challenge, whose
// follow-up (welcome, goodbye or error) is left to read, or the agent's refusal.
nlohmann::json send_hello_and_auth(int fd, const std::string &token,
                                   const nlohmann::json &extra = nlohmann::json::object());
// The hello that send_hello_and_auth sends, with its nonce.
nlohmann::json client_hello(const std::string &nonce, const nlohmann::json &extra);

// A client past the handshake, talking to the agent's worker directly (as an attacker would).
struct worker_session {
    int fd = -1;
    // After the agent's welcome and its worker's hello, the session welcomes the worker with
    // worker protocol `version` ("" sends no welcome).
    worker_session(const agent &a, const std::string &token, const std::string &source = "",
                   const std::string &version = "1.0");
    ~worker_session();
    worker_session(const worker_session &) = delete;
    worker_session &operator=(const worker_session &) = delete;
    nlohmann::json request(const nlohmann::json &message);
};

nlohmann::json setup_frame(const std::string &library, const std::string &transport,
                           const std::string &role, const std::string &address);

}  // namespace ipcbench::test
