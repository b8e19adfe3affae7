#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace ipcbench::platform {

// One thread's set of waitable descriptors (epoll on Linux), edge-triggered by default: after a
// descriptor fired, its owner drives it until the transport says "would block", or keeps it on
// its own ready list; so the set never needs changing while the streams run. Each descriptor
// carries a tag the caller chooses (its stream). Windows has no readiness engine (IOCP is
// completion): constructing one there throws, with that reason.
class readiness_poller {
public:
    static constexpr std::uint32_t readable = 1, writable = 2;  // == IPCB_EVENT_*

    readiness_poller();
    ~readiness_poller();
    readiness_poller(const readiness_poller &) = delete;
    readiness_poller &operator=(const readiness_poller &) = delete;

    // Watches fd for `events` (readable | writable), edge-triggered or level-triggered; throws
    // with the OS error.
    void add(std::int64_t fd, std::uint32_t events, std::uint64_t tag, bool edge = true);
    void remove(std::int64_t fd);

    struct event {
        std::uint64_t tag;
        std::uint32_t events;  // readable | writable; errors and hang-ups report both
    };
    // Waits at most timeout_ns (0: poll, -1: forever) and stores up to max events in out.
    // Returns how many (0 on timeout or a signal).
    int wait(event *out, int max, std::int64_t timeout_ns);

private:
    struct state;
    std::unique_ptr<state> state_;
};

// Whether this system has the readiness engine (--io epoll).
bool has_readiness_poller();

}  // namespace ipcbench::platform
