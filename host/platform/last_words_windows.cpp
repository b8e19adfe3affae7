#include "platform/last_words.hpp"

#include "platform/windows_api.hpp"

#include <atomic>

namespace ipcbench::platform {
namespace {

void (*registered)() = nullptr;
std::atomic<bool> spoken{false};

// Console close, logoff and shutdown reach a worker as control events; Ctrl+C is the parent's
// to decide (it ignores it in workers, see signals_windows.cpp). A worker its parent's Job object
// terminates gets no last words: the kernel objects a Windows transport makes (named pipes, file
// mappings) go away with their last handle, so nothing named outlives it.
BOOL WINAPI on_console_event_last_words(DWORD event) {
    if (event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT) return TRUE;
    terminate_with_last_words();
}

}  // namespace

void on_termination(void (*last_words)()) {
    registered = last_words;
    SetConsoleCtrlHandler(on_console_event_last_words, TRUE);
}

void die_without_last_words() {
    for (;;) TerminateProcess(GetCurrentProcess(), 9);
}

void terminate_with_last_words() {
    if (!spoken.exchange(true) && registered) registered();
    ExitProcess(143);
}

}  // namespace ipcbench::platform
