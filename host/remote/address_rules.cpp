#include "remote/address_rules.hpp"

#include <stdexcept>

#include "platform/stream_socket.hpp"

namespace ipcbench::remote {
namespace {

bool all(const std::vector<unsigned char> &b, unsigned char value) {
    for (unsigned char c : b)
        if (c != value) return false;
    return true;
}

address_scope scope_of_v4(const std::vector<unsigned char> &b) {
    if (all(b, 0)) return address_scope::unspecified;
    if (all(b, 255)) return address_scope::broadcast;
    if (b[0] == 127) return address_scope::loopback;
    if (b[0] == 169 && b[1] == 254) return address_scope::link_local;
    if (b[0] >= 224 && b[0] <= 239) return address_scope::multicast;
    return address_scope::ordinary;
}

address_scope scope_of_v6(const std::vector<unsigned char> &b) {
    if (all(b, 0)) return address_scope::unspecified;
    bool loopback = b[15] == 1;
    for (int i = 0; i < 15; ++i) loopback = loopback && b[i] == 0;
    if (loopback) return address_scope::loopback;
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return address_scope::link_local;
    if (b[0] == 0xff) return address_scope::multicast;
    return address_scope::ordinary;
}

}  // namespace

address_scope scope_of(const std::string &host) {
    const auto b = platform::address_bytes(host);
    if (b.size() == 4) return scope_of_v4(b);
    if (b.size() == 16) return scope_of_v6(b);
    return address_scope::ordinary;
}

std::string client_unit(const std::string &host) {
    auto b = platform::address_bytes(host);
    if (scope_of(host) == address_scope::loopback) return "loopback";
    if (b.size() != 16) return host;
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < 8; i += 2) {
        for (const unsigned char c : {b[i], b[i + 1]}) {
            out += digits[c >> 4];
            out += digits[c & 15];
        }
        out += ':';
    }
    return out + ":/64";
}

const char *describe(address_scope scope) {
    switch (scope) {
        case address_scope::unspecified: return "unspecified";
        case address_scope::loopback: return "loopback";
        case address_scope::link_local: return "link-local";
        case address_scope::multicast: return "multicast";
        case address_scope::broadcast: return "broadcast";
        case address_scope::ordinary: break;
    }
    return "ordinary";
}

std::string address_prefix::text() const {
    return host + "/" + std::to_string(bits);
}

bool address_prefix::contains(const std::string &host) const {
    const auto b = platform::address_bytes(host);
    if (b.size() != bytes.size()) return false;
    for (int i = 0; i < bits; ++i) {
        const unsigned mask = 0x80u >> (i % 8);
        if ((b[i / 8] & mask) != (bytes[i / 8] & mask)) return false;
    }
    return true;
}

address_prefix parse_prefix(const std::string &text) {
    const auto slash = text.find('/');
    const std::string host = text.substr(0, slash);
    address_prefix p;
    p.bytes = platform::address_bytes(host);
    p.host = platform::canonical_address(host);
    if (p.bytes.empty())
        throw std::invalid_argument("'" + text + "': expected a numeric address or ADDRESS/BITS");
    const int width = static_cast<int>(p.bytes.size() * 8);
    p.bits = width;
    if (slash != std::string::npos) {
        const std::string bits = text.substr(slash + 1);
        if (bits.empty() || bits.size() > 3 ||
            bits.find_first_not_of("0123456789") != std::string::npos || std::stoi(bits) > width)
            throw std::invalid_argument("'" + text + "': the prefix length must be 0-" +
                                        std::to_string(width));
        p.bits = std::stoi(bits);
    }
    return p;
}

}  // namespace ipcbench::remote
