#include "platform/child_process.hpp"

#include "platform/windows_api.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <stdexcept>

#include "platform/output_capture.hpp"

namespace ipcbench::platform {
namespace {

// The exit code TerminateJobObject gives a worker ipchost kills, told apart from a crash.
constexpr UINT killed_code = 0x4B1;

HANDLE handle_of(std::intptr_t h) {
    return reinterpret_cast<HANDLE>(h);
}

}  // namespace

std::string exit_status::describe() const {
    if (signaled) return "terminated by ipchost";
    if (exited) return windows::describe_exit_code(static_cast<DWORD>(code));
    return "still running";
}

std::string self_executable_path() {
    return boost::dll::program_location().string();
}

// The worker gets its end of the control pair through WSADuplicateSocket, described on its stdin
// (platform/stream_socket.hpp); stdout and stderr go to the output capture.
child_process::child_process(const std::string &program, const std::vector<std::string> &args,
                             const std::string &label, captured_output *keep, int start_cpu,
                             const std::vector<std::string> *environment)
    : output_(std::make_unique<output_capture>(label, keep)) {
    std::array<socket_handle, 2> pair{};
    try {
        pair = connected_pair();
    } catch (const socket_error &e) {
        throw std::runtime_error(std::string("control socket for the worker: ") + e.what());
    }
    std::vector<std::string> full = args;
    full.push_back("--control-socket");
    full.push_back("stdin");
    windows::job_process started;
    try {
        SECURITY_ATTRIBUTES plain{sizeof(SECURITY_ATTRIBUTES), nullptr, FALSE};
        HANDLE in_read = nullptr, in_write = nullptr;
        if (!CreatePipe(&in_read, &in_write, &plain, 4096))
            throw std::runtime_error("pipe for the worker's stdin: " + windows::last_error_text());
        const windows::unique_handle input(in_read), input_writer(in_write);
        const HANDLE output = handle_of(output_->child_fd());
        // The socket's description for this very process, written before it runs.
        started = windows::start_in_job(
            program, full, input.get(), output, output, {},
            [&](long pid) {
                if (start_cpu >= 0 && start_cpu < 64) {  // before its first thread runs
                    const windows::unique_handle p(
                        OpenProcess(PROCESS_SET_INFORMATION | PROCESS_QUERY_INFORMATION, FALSE,
                                    static_cast<DWORD>(pid)));
                    if (p) SetProcessAffinityMask(p.get(), DWORD_PTR{1} << start_cpu);
                }
                const std::string info = socket_for_process(pair[1], pid);
                DWORD written = 0;
                if (!WriteFile(input_writer.get(), info.data(), static_cast<DWORD>(info.size()),
                               &written, nullptr) ||
                    written != info.size())
                    throw std::runtime_error("cannot pass the control socket to the worker: " +
                                             windows::last_error_text());
            },
            environment);
    } catch (...) {
        close_socket(pair[0]);
        close_socket(pair[1]);
        throw;
    }
    close_socket(pair[1]);
    output_->close_child_fd();
    control_ = pair[0];
    pid_ = started.pid;
    process_ = reinterpret_cast<std::intptr_t>(started.process.release());
    job_ = reinterpret_cast<std::intptr_t>(started.job.release());
}

child_process::~child_process() {
    if (!finished_) {
        kill();
        wait(-1);
    }
    close_socket(control_);
    CloseHandle(handle_of(process_));
    CloseHandle(handle_of(job_));  // KILL_ON_JOB_CLOSE: whatever the worker started ends here
}

void child_process::kill() {
    if (!finished_) TerminateJobObject(handle_of(job_), killed_code);
}

bool child_process::wait(int timeout_ms) {
    if (finished_) return true;
    const DWORD rc = WaitForSingleObject(
        handle_of(process_), timeout_ms < 0 ? INFINITE : static_cast<DWORD>(timeout_ms));
    if (rc == WAIT_TIMEOUT) return false;
    DWORD code = 0;
    GetExitCodeProcess(handle_of(process_), &code);
    finished_ = true;
    if (code == killed_code) {
        status_.signaled = true;
        status_.signal = 9;
    } else {
        status_.exited = true;
        status_.code = static_cast<int>(code);
    }
    return true;
}

// Nothing to do: what a worker starts is in the worker's Job object and ends with it.
void become_subreaper() {}

std::vector<std::string> kill_escaped_children(const std::vector<long> &) {
    return {};
}

}  // namespace ipcbench::platform
