#pragma once

#include <cstddef>
#include <string>

namespace ipcbench::remote {

// The agent handshake of protocol 2: a mutual challenge-response over HMAC-SHA256
// (platform/crypto.hpp), so the token never crosses the wire and a party without it learns
// nothing it could use:
//   client -> agent  hello      {"protocol": 2, "nonce": Nc, "session": S, "done": D, "client"}
//   agent  -> client challenge  {"nonce": Na, "proof": HMAC(token, transcript("agent"))}
//                               ({"nonce": Na, "insecure": true} from `serve --insecure`)
//   client -> agent  auth       {"proof": HMAC(token, transcript("client"))}, sent only once the
//                               agent's proof was checked: a non-agent gets nothing of the token
//   agent  -> client welcome (or goodbye for a done hello), or error "wrong token"
// Nonces are 32 random bytes in hex, fresh on each side for each connection, so no proof is
// ever good twice; each proof covers both nonces, the role that made it and what the hello
// asked for (session kind, done), so it cannot be reflected or moved to another request.
struct handshake_transcript {
    std::string client_nonce;
    std::string agent_nonce;
    std::string session;  // "worker", "peer_client", "roll_call"
    bool done = false;
};

enum class proof_role { agent, client };

// HMAC-SHA256(token, "ipcbench agent protocol 2\n<role>\n<Nc>\n<Na>\n<session>\n<done|run>"),
// in lower-case hex.
std::string handshake_proof(const std::string &token, proof_role role,
                            const handshake_transcript &t);
// Whether `given` is the proof `expected`, in constant time.
bool proof_matches(const std::string &expected, const std::string &given);

// A fresh nonce: 64 lower-case hex digits from the system's cryptographic generator.
std::string new_nonce();
// Whether `text` is shaped like one (what a hello or challenge must carry).
bool is_nonce(const std::string &text);

// Lower-case hex of bytes.
std::string hex(const unsigned char *bytes, std::size_t n);

}  // namespace ipcbench::remote
