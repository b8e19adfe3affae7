#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "control/frame_codec.hpp"
#include "platform/stream_socket.hpp"
#include "remote/agent_hello.hpp"

namespace ipcbench::remote {

// Connections that have not proven they hold the token yet, admitted fairly: a flood of connections
// that never say hello must not keep out a real client whose hello takes a while to arrive (a far
// host, a slow link). Each source address holds at most per_source of the places and all
// sources together at most total; a newcomer whose source is full takes the place of that
// source's oldest, one that finds every place taken takes the place of the oldest connection
// of the source holding the most. So a flood from one address only ever evicts itself, and a
// flood from many addresses leaves each connection `total / rate` seconds to say hello.
// Memory is bounded too: a handshake frame is at most control::max_handshake_frame_bytes.
struct pending_client {
    platform::socket_handle fd = platform::no_socket;
    std::string source;  // the peer's address without the port
    std::string unit;    // what it counts as (client_unit of source): the unit of fairness
    std::string peer;    // with the port, for the log
    std::int64_t deadline = 0;
    control::frame_decoder decoder{control::max_handshake_frame_bytes};
    std::size_t bytes_seen = 0;  // what it sent so far (0 and closed: a health check)
    // Set once its hello was taken and the challenge sent: the auth is awaited, within the same
    // deadline (remote/agent_handshake.hpp).
    std::optional<agent_hello> hello;
    std::string agent_nonce;
    std::int64_t hello_at = 0;     // when its hello was taken (platform::now_ns); 0: none yet
    std::int64_t admitted_at = 0;  // when it was admitted
};

// A client that sent its hello has this long, from then, to finish (its challenge's round trip
// and its auth) before a newcomer from its unit may displace it: a flood from a client's own
// address (a NAT, a shared host) must not rotate a distant client's handshake out between its
// two round trips. A connection that sent nothing yet has no floor; one whose first bytes are
// waiting unread (the agent reads them next turn) has it from its admission.
inline constexpr std::int64_t handshake_floor_ns = 2'000'000'000;

class pending_handshakes {
public:
    static constexpr std::size_t default_per_source = 64;
    static constexpr std::size_t default_total = 1024;

    explicit pending_handshakes(std::size_t per_source = default_per_source,
                                std::size_t total = default_total)
        : per_source_(per_source), total_(total) {}

    // Admits `client` at `now`; returns the connection it displaced, if any (the caller refuses
    // it): the oldest of its unit's when that unit holds per_source already, else of the unit
    // holding most when all total are taken, never one within its handshake floor. When every
    // candidate is within its floor, the newcomer itself comes back, refused.
    // `speaking` says whether a connection's bytes are waiting unread.
    std::optional<pending_client> admit(
        pending_client client, std::int64_t now,
        const std::function<bool(const pending_client &)> &speaking = {});
    // Takes out the connection on fd (its handshake is decided); nullopt if it is not here.
    std::optional<pending_client> take(platform::socket_handle fd);
    // Takes out every connection whose deadline is before `now`.
    std::vector<pending_client> expire(std::int64_t now);

    pending_client *find(platform::socket_handle fd);
    const std::vector<pending_client> &all() const { return clients_; }
    std::size_t size() const { return clients_.size(); }
    std::size_t count_from(const std::string &unit) const;
    std::size_t capacity() const { return total_; }

private:
    std::size_t per_source_, total_;
    std::vector<pending_client> clients_;  // oldest first
};

}  // namespace ipcbench::remote
