#include "platform/signals.hpp"

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>

namespace ipcbench::platform {
namespace {

// Written by the handler, read by every thread that waits (a fleet's pairs, the streams):
// an atomic, which a lock-free one makes safe in a handler too; a volatile sig_atomic_t is
// only safe within the one thread the signal interrupts (ThreadSanitizer calls it a race).
std::atomic<int> caught_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only use lock-free atomics");

extern "C" void on_interrupt(int sig) {
    caught_signal = sig;
}

}  // namespace

void install_interrupt_handlers() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocked poll returns EINTR and sees the flag
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    ignore_sigpipe();
}

bool interrupted() {
    return caught_signal != 0;
}

std::string interrupt_name() {
    const int sig = caught_signal.load();
    if (sig == 0) return "";
    const char *name = sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : "");
}

void ignore_sigpipe() {
    std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace ipcbench::platform
