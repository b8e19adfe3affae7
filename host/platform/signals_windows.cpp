#include "platform/signals.hpp"

#include "platform/windows_api.hpp"

#include <atomic>

namespace ipcbench::platform {
namespace {

std::atomic<DWORD> caught{0};
std::atomic<bool> handled{false};

// Runs on a thread of its own that the console starts: sets the flag the waits look at
// (platform/stream_socket.cpp polls in slices for it) and lets the process go on.
BOOL WINAPI on_console_event(DWORD event) {
    caught = event + 1;
    return TRUE;
}

}  // namespace

void install_interrupt_handlers() {
    if (!handled.exchange(true)) SetConsoleCtrlHandler(on_console_event, TRUE);
}

bool interrupted() {
    return caught != 0;
}

std::string interrupt_name() {
    switch (caught.load()) {
        case 0: return "";
        case CTRL_C_EVENT + 1: return "Ctrl+C";
        case CTRL_BREAK_EVENT + 1: return "Ctrl+Break";
        case CTRL_CLOSE_EVENT + 1: return "the console closing";
        default: return "a console event (logoff or shutdown)";
    }
}

// No SIGPIPE on Windows: a closed pipe or socket is an error code already.
void ignore_sigpipe() {}

}  // namespace ipcbench::platform
