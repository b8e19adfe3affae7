#pragma once

// Helpers the Windows implementations in host/platform/ share (never included elsewhere):
// UTF-8 <-> UTF-16 for the W calls, the system's own words for an error code, and a security
// descriptor that lets only the current user in.

#include <windows.h>

#include <functional>
#include <string>
#include <vector>

namespace ipcbench::platform::windows {

std::wstring widen(const std::string &utf8);
std::string narrow(const std::wstring &utf16);
// FormatMessage's text for `code` (GetLastError()), without the trailing line break, followed by
// the code: "The system cannot find the file specified. (error 2)".
std::string error_text(DWORD code);
inline std::string last_error_text() {
    return error_text(GetLastError());
}

// SECURITY_ATTRIBUTES granting full access to the current user only, with inheritance off and
// nothing inherited from the parent folder ("D:P(A;;GA;;;<user SID>)"). Owns its descriptor.
class owner_only_security {
public:
    owner_only_security();
    ~owner_only_security();
    owner_only_security(const owner_only_security &) = delete;
    owner_only_security &operator=(const owner_only_security &) = delete;
    SECURITY_ATTRIBUTES *attributes() { return &attributes_; }
    const std::wstring &user_sid() const { return sid_; }

private:
    std::wstring sid_;
    SECURITY_ATTRIBUTES attributes_{};
};

// A handle closed when it goes out of scope.
class unique_handle {
public:
    unique_handle() = default;
    explicit unique_handle(HANDLE h) : h_(h) {}
    ~unique_handle() { reset(); }
    unique_handle(const unique_handle &) = delete;
    unique_handle &operator=(const unique_handle &) = delete;
    unique_handle(unique_handle &&o) noexcept : h_(o.release()) {}
    unique_handle &operator=(unique_handle &&o) noexcept {
        if (this != &o) {
            reset();
            h_ = o.release();
        }
        return *this;
    }
    HANDLE get() const { return h_; }
    explicit operator bool() const { return h_ != nullptr && h_ != INVALID_HANDLE_VALUE; }
    HANDLE release() {
        HANDLE h = h_;
        h_ = nullptr;
        return h;
    }
    void reset(HANDLE h = nullptr) {
        if (*this) CloseHandle(h_);
        h_ = h;
    }

private:
    HANDLE h_ = nullptr;
};

// One argument as CommandLineToArgvW and the C runtime read it back (quotes, and backslashes
// before a quote, escaped).
std::wstring quote_argument(const std::wstring &argument);
std::wstring command_line(const std::string &program, const std::vector<std::string> &args);

// A process started suspended, put in a Job object of its own with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE (it and all it starts end when the job handle closes, also
// when ipchost dies), then resumed. It inherits only `inherit` (plus its standard handles).
struct job_process {
    unique_handle process;
    unique_handle job;
    long pid = 0;
};
// `environment`, when given, is the child's whole environment (NAME=VALUE entries).
// `before_resume`, when given, runs while the process is still suspended (with its pid).
job_process start_in_job(const std::string &program, const std::vector<std::string> &args,
                         HANDLE std_in, HANDLE std_out, HANDLE std_err, std::vector<HANDLE> inherit,
                         const std::function<void(long pid)> &before_resume = {},
                         const std::vector<std::string> *environment = nullptr);
// NUL opened for reading or writing, inheritable (a child's unused standard handle).
unique_handle null_device(bool for_writing);
// What an exit code means: a crash's NTSTATUS ("exception 0xC0000005 (access violation)") or a
// plain "exit code 3".
std::string describe_exit_code(DWORD code);

}  // namespace ipcbench::platform::windows
