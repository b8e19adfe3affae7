#pragma once

#include <cstddef>
#include <string>

namespace ipcbench::remote {

// The agent handshake of protocol 3: a mutual challenge-response over HMAC-SHA256
// (platform/crypto.hpp), so the token never crosses the wire and a party without it learns
// nothing it could use:
//   client -> agent  hello      {"protocol": 3, "nonce": Nc, "dialled": A, "session": S,
//                                "done": D, "client"}
//   agent  -> client challenge  {"nonce": Na, "proof": HMAC(token, transcript("agent"))}
//                               ({"nonce": Na, "insecure": true} from `serve --insecure`)
//   client -> agent  auth       {"proof": HMAC(token, transcript("client"))}, sent only once the
//                               agent's proof was checked: a non-agent gets nothing of the token
//   agent  -> client welcome (or goodbye for a done hello), sealed; or error "wrong token"
// Nonces are 32 random bytes in hex, fresh on each side for each connection, so no proof is
// ever good twice; each proof covers both nonces, the role that made it, what the hello asked
// for (session kind, done) and the address the client dialled (A, numeric "host:port" as its
// socket connected; the agent puts in the address the connection reached it at), so it cannot
// be reflected, moved to another request, or relayed to an agent at another address.
// Protocol 3 binds the session to the handshake: every frame after it, both ways, is sealed
// with a key of its direction derived from the token, both nonces and the transcript
// (session_keys, control/frame_seal.hpp), so a relay that passed the handshake through can
// neither drive the session nor alter a frame of it.
struct handshake_transcript {
    std::string client_nonce;
    std::string agent_nonce;
    std::string session;  // "worker", "peer_client", "roll_call"
    bool done = false;
    std::string dialled;  // "127.0.0.1:7000", "[::1]:7000"
};

enum class proof_role { agent, client };

// HMAC-SHA256(token, "ipcbench agent protocol 3\n<role>\n<Nc>\n<Na>\n<session>\n<done|run>\n
// <dialled>"), in lower-case hex.
std::string handshake_proof(const std::string &token, proof_role role,
                            const handshake_transcript &t);
// Whether `given` is the proof `expected`, in constant time.
bool proof_matches(const std::string &expected, const std::string &given);

// The keys that seal a session's frames, one per direction: HKDF-SHA256 of the token, salted
// with both nonces, for this transcript's session and address (64 bytes, split in two).
struct session_keys {
    std::string to_agent, to_client;
};
session_keys derive_session_keys(const std::string &token, const handshake_transcript &t);

// How an address is written in the transcript: "host:port", an IPv6 host in brackets, the host
// canonical (platform::canonical_address).
std::string transcript_address(const std::string &host, int port);

// A fresh nonce: 64 lower-case hex digits from the system's cryptographic generator.
std::string new_nonce();
// Whether `text` is shaped like one (what a hello or challenge must carry).
bool is_nonce(const std::string &text);

// Lower-case hex of bytes.
std::string hex(const unsigned char *bytes, std::size_t n);

}  // namespace ipcbench::remote
