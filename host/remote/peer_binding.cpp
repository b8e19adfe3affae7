#include "remote/peer_binding.hpp"

#include "remote/agent_handshake.hpp"

namespace ipcbench::remote {

std::string new_binding_key() {
    return new_nonce();
}

std::optional<std::string> binding_key_bytes(const std::string &hex_key) {
    if (hex_key.size() < 32 || hex_key.size() > 128 || hex_key.size() % 2 != 0) return std::nullopt;
    auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (std::size_t i = 0; i < hex_key.size(); i += 2) {
        const int hi = digit(hex_key[i]), lo = digit(hex_key[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
    }
    return out;
}

}  // namespace ipcbench::remote
