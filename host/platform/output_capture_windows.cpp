#include "platform/output_capture.hpp"

#include "platform/windows_api.hpp"

#include <fmt/format.h>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace ipcbench::platform {

output_capture::output_capture(std::string label, captured_output *keep)
    : label_(std::move(label)), keep_(keep) {
    SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE read_end = nullptr, write_end = nullptr;
    if (!CreatePipe(&read_end, &write_end, &inheritable, 64 * 1024))
        throw std::runtime_error("pipe for a worker's output: " + windows::last_error_text());
    SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);  // only the write end goes along
    read_fd_ = reinterpret_cast<std::intptr_t>(read_end);
    write_fd_ = reinterpret_cast<std::intptr_t>(write_end);
    thread_ = std::thread([this] { forward(); });
}

output_capture::~output_capture() {
    close_child_fd();
    stop_.store(true);
    thread_.join();
    CloseHandle(reinterpret_cast<HANDLE>(read_fd_));
    if (dropped_ > 0)
        fmt::print(stderr, "[{}] ... {} more bytes of output dropped\n", label_, dropped_);
}

void output_capture::close_child_fd() {
    if (write_fd_ != -1) CloseHandle(reinterpret_cast<HANDLE>(write_fd_));
    write_fd_ = -1;
}

// An anonymous pipe cannot be waited on with a timeout: peek every 20 ms, read what is there.
// The pipe breaks when every writer has closed it; when something the child started still holds
// it, the destructor's stop ends the loop instead.
void output_capture::forward() {
    const HANDLE pipe = reinterpret_cast<HANDLE>(read_fd_);
    char buf[16384];
    for (;;) {
        DWORD available = 0;
        const bool open = PeekNamedPipe(pipe, nullptr, 0, nullptr, &available, nullptr) != 0;
        DWORD n = 0;
        if (open && available > 0)
            ReadFile(pipe, buf, std::min<DWORD>(available, sizeof buf), &n, nullptr);
        if (n > 0) take(buf, n);
        const bool done = !open || (available == 0 && stop_.load());
        emit_lines(done);
        if (done) break;
        if (available == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

}  // namespace ipcbench::platform
