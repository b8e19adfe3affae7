#pragma once

#include <string>
#include <vector>

namespace ipcbench::remote {

// Where an agent or a client may go, by the address alone (numeric IPv4 or IPv6).

// The kinds of address no benchmark peer is: nothing listens at an unspecified one, a
// multicast or broadcast one reaches many hosts, a link-local one (169.254.169.254 is a cloud's
// metadata service) and a loopback one are this host's own network.
enum class address_scope { ordinary, unspecified, loopback, link_local, multicast, broadcast };
address_scope scope_of(const std::string &host);  // ordinary for what is not numeric
const char *describe(address_scope scope);        // "link-local", ...

// The unit an agent counts a client by (--max-sessions-per-client, the handshakes a source may
// have pending): what one party can hold many addresses of counts once. Every loopback address
// (127.0.0.0/8 and ::1) is this host: "loopback"; an IPv6 address counts by its /64 (one
// subnet, whose owner has all of it: "2001:db8:1:2::/64"); an IPv4 address other than loopback
// by itself (a /24 would merge the pods of a node, or the clients behind a NAT, into one).
std::string client_unit(const std::string &host);

// A network ADDRESS/BITS ("10.244.0.0/16", "fd00::/8") or one address (all its bits).
struct address_prefix {
    std::string host;                  // canonical
    std::vector<unsigned char> bytes;  // 4 or 16
    int bits = 0;
    std::string text() const;
    bool contains(const std::string &host) const;
};
// Throws std::invalid_argument naming the text and what is wrong.
address_prefix parse_prefix(const std::string &text);

}  // namespace ipcbench::remote
