#include "remote/agent_handshake.hpp"

#include <algorithm>

#include "platform/crypto.hpp"
#include "platform/stream_socket.hpp"

namespace ipcbench::remote {

std::string hex(const unsigned char *bytes, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

namespace {

std::string transcript_text(const handshake_transcript &t) {
    return t.client_nonce + "\n" + t.agent_nonce + "\n" + t.session + "\n" +
           (t.done ? "done" : "run") + "\n" + t.dialled;
}

}  // namespace

std::string handshake_proof(const std::string &token, proof_role role,
                            const handshake_transcript &t) {
    const std::string transcript = std::string("ipcbench agent protocol 3\n") +
                                   (role == proof_role::agent ? "agent" : "client") + "\n" +
                                   transcript_text(t);
    const auto digest = platform::hmac_sha256(token, transcript);
    return hex(digest.data(), digest.size());
}

session_keys derive_session_keys(const std::string &token, const handshake_transcript &t) {
    const std::string keys =
        platform::hkdf_sha256(token, t.client_nonce + t.agent_nonce,
                              "ipcbench agent protocol 3 session keys\n" + transcript_text(t), 64);
    return {keys.substr(0, 32), keys.substr(32)};
}

std::string transcript_address(const std::string &host, int port) {
    std::string h = platform::canonical_address(host);
    if (h.empty()) h = host;
    if (h.find(':') != std::string::npos) h = "[" + h + "]";
    return h + ":" + std::to_string(port);
}

bool proof_matches(const std::string &expected, const std::string &given) {
    return platform::equal_in_constant_time(expected, given);
}

std::string new_nonce() {
    const std::string bytes = platform::random_bytes(32);
    return hex(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size());
}

bool is_nonce(const std::string &text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

}  // namespace ipcbench::remote
