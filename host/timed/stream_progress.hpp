#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace ipcbench::timed {

// Shared by one stream's thread and the worker's main thread: live counts for interval reports,
// and what the peer's sender reported (for receivers of unreliable transports).
struct stream_progress {
    std::atomic<std::uint64_t> messages{0};       // timed messages so far
    std::atomic<std::uint64_t> expected_next{0};  // highest sequence seen + 1 (receivers)
    std::atomic<std::int64_t> peer_sent{-1};      // the sender's final count, once known
    std::atomic<bool> finished{false};
    // Set when the stream runs on the worker's main thread: serves the control channel (which
    // may deliver peer_sent). Loops call it only when idle (a receive timed out).
    std::function<void()> poll_control;
};

}  // namespace ipcbench::timed
