#include "platform/readiness_poller.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "platform/os_calls.hpp"

namespace ipcbench::platform {

struct readiness_poller::state {
    int epoll_fd = -1;
    std::vector<epoll_event> events;
};

namespace {

[[noreturn]] void poller_failure(const std::string &what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

readiness_poller::readiness_poller() : state_(std::make_unique<state>()) {
    state_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (state_->epoll_fd < 0) poller_failure("epoll_create1");
}

readiness_poller::~readiness_poller() {
    if (state_->epoll_fd >= 0) close(state_->epoll_fd);
}

void readiness_poller::add(std::int64_t fd, std::uint32_t events, std::uint64_t tag, bool edge) {
    epoll_event e{};
    e.events = (edge ? EPOLLET : 0u) | ((events & readable) ? EPOLLIN | EPOLLRDHUP : 0u) |
               ((events & writable) ? EPOLLOUT : 0u);
    e.data.u64 = tag;
    if (epoll_ctl(state_->epoll_fd, EPOLL_CTL_ADD, static_cast<int>(fd), &e) != 0)
        poller_failure("epoll_ctl(ADD, fd " + std::to_string(fd) + ")");
}

void readiness_poller::remove(std::int64_t fd) {
    epoll_event e{};
    epoll_ctl(state_->epoll_fd, EPOLL_CTL_DEL, static_cast<int>(fd), &e);
}

int readiness_poller::wait(event *out, int max, std::int64_t timeout_ns) {
    if (static_cast<int>(state_->events.size()) < max) state_->events.resize(max);
    // epoll_wait counts milliseconds; round up so a timer is never woken early.
    const int timeout_ms =
        timeout_ns < 0
            ? -1
            : static_cast<int>(std::min<std::int64_t>((timeout_ns + 999'999) / 1'000'000, 60'000));
    const int n =
        IPCBENCH_OS_CALL(epoll_wait)(state_->epoll_fd, state_->events.data(), max, timeout_ms);
    if (n < 0) {
        if (errno == EINTR) return 0;
        poller_failure("epoll_wait");
    }
    for (int i = 0; i < n; ++i) {
        const std::uint32_t e = state_->events[i].events;
        std::uint32_t ready = 0;
        if (e & (EPOLLIN | EPOLLRDHUP)) ready |= readable;
        if (e & EPOLLOUT) ready |= writable;
        if (e & (EPOLLERR | EPOLLHUP)) ready |= readable | writable;  // the call tells what
        out[i] = {state_->events[i].data.u64, ready};
    }
    return n;
}

bool has_readiness_poller() {
    return true;
}

}  // namespace ipcbench::platform
