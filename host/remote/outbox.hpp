#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/stream_socket.hpp"

namespace ipcbench::remote {

// Bytes an agent owes one peer (a client or a worker), written only as fast as the peer takes
// them and never more than `limit` of them: the agent never waits on a peer's socket, and a
// peer that stops reading is cut once the bound is reached (the caller decides, push says so).
class outbox {
public:
    explicit outbox(std::size_t limit) : limit_(limit) {}

    // Queues the bytes; false (nothing queued) when they would take it past the bound.
    bool push(const std::string &bytes);
    // Writes what the socket takes now. False when the peer is gone; `moved` says whether any
    // byte went (a peer that takes nothing for long is stalled: the caller times that).
    bool flush(platform::socket_handle s, bool &moved);

    bool empty() const { return pending() == 0; }
    std::size_t pending() const { return bytes_.size() - sent_; }
    std::size_t limit() const { return limit_; }

private:
    std::size_t limit_;
    std::string bytes_;
    std::size_t sent_ = 0;
};

}  // namespace ipcbench::remote
