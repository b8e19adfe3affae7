#include "platform/readiness_poller.hpp"

#include <stdexcept>

namespace ipcbench::platform {

// Windows waits on completions (IOCP), not on readiness: no built-in transport offers
// event_source there, and the engine choice never asks for this (harness/io_engine_choice.cpp).
struct readiness_poller::state {};

readiness_poller::readiness_poller() {
    throw std::runtime_error("--io epoll is Linux's readiness engine; Windows has none");
}
readiness_poller::~readiness_poller() = default;
void readiness_poller::add(std::int64_t, std::uint32_t, std::uint64_t, bool) {}
void readiness_poller::remove(std::int64_t) {}
int readiness_poller::wait(event *, int, std::int64_t) {
    return 0;
}

bool has_readiness_poller() {
    return false;
}

}  // namespace ipcbench::platform
