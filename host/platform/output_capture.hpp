#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

namespace ipcbench::platform {

// The stdout and stderr of a child (a worker: plugin code may print anything) go into a pipe;
// a thread forwards what arrives to ipchost's stderr, each line escaped (text/printable_text)
// and prefixed with `label`, up to max_forwarded bytes, and counts the rest. ipchost's stdout,
// where results go, never sees a worker's output.
// What a child printed, kept for its case's result: every byte counted, the first max_kept bytes
// of text (escaped, line by line). Written by the capture thread only, read after it is gone.
struct captured_output {
    std::size_t bytes = 0;
    std::string text;
    static constexpr std::size_t max_kept = 4096;
};

class output_capture {
public:
    // `keep`, when given, receives what the child printed (it must outlive this object).
    explicit output_capture(std::string label, captured_output *keep = nullptr);
    ~output_capture();  // stops forwarding (at most ~100 ms), reports what was dropped
    output_capture(const output_capture &) = delete;
    output_capture &operator=(const output_capture &) = delete;

    // The pipe end for the child's stdout and stderr (POSIX: a descriptor; Windows: a HANDLE).
    std::intptr_t child_fd() const { return write_fd_; }
    void close_child_fd();  // in the parent, once the child has it

    static constexpr std::size_t max_forwarded = std::size_t{64} * 1024;

private:
    void forward();                                 // the capture thread (per system)
    void take(const char *data, std::size_t size);  // counts, keeps up to max_forwarded
    void emit_lines(bool done);                     // prints the complete lines (all when done)

    std::string label_;
    captured_output *keep_ = nullptr;
    std::intptr_t read_fd_ = -1, write_fd_ = -1;
    std::atomic<bool> stop_{false};
    std::size_t forwarded_ = 0, dropped_ = 0;
    std::string pending_;
    std::thread thread_;
};

}  // namespace ipcbench::platform
