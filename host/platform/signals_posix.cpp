#include "platform/signals.hpp"

#include <csignal>
#include <cstring>
#include <string>

namespace ipcbench::platform {
namespace {

volatile std::sig_atomic_t caught_signal = 0;

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
    if (caught_signal == 0) return "";
    const char *name = sigabbrev_np(caught_signal);
    return "signal " + std::to_string(caught_signal) +
           (name ? std::string(" (SIG") + name + ")" : "");
}

void ignore_sigpipe() {
    std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace ipcbench::platform
