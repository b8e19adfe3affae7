#include "platform/command_output.hpp"

#include <cstdlib>
#include <sstream>

#include "platform/monotonic_clock.hpp"
#include "platform/windows_api.hpp"

namespace ipcbench::platform {

command_output run_for_output(const std::vector<std::string> &argv, int timeout_ms,
                              std::size_t max_bytes, const std::function<bool()> &stop,
                              const std::vector<std::string> *environment) {
    command_output out;
    if (argv.empty() || argv[0].empty()) {
        out.failure = "the command is empty";
        return out;
    }
    SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE read_end = nullptr, write_end = nullptr;
    if (!CreatePipe(&read_end, &write_end, &inheritable, 0)) {
        out.failure = "pipe: " + windows::last_error_text();
        return out;
    }
    windows::unique_handle reader(read_end), writer(write_end);
    SetHandleInformation(reader.get(), HANDLE_FLAG_INHERIT, 0);
    windows::job_process started;
    try {
        const windows::unique_handle input = windows::null_device(false);
        started = windows::start_in_job(
            argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()), input.get(),
            writer.get(), writer.get(), {writer.get()}, {}, environment);
    } catch (const std::exception &e) {
        out.failure = e.what();
        return out;
    }
    writer.reset();  // ours: the pipe ends when the child's copy closes
    const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    char buf[1024];
    for (;;) {
        DWORD available = 0;
        if (!PeekNamedPipe(reader.get(), nullptr, 0, nullptr, &available, nullptr)) break;
        if (available > 0) {
            DWORD n = 0;
            if (!ReadFile(reader.get(), buf, sizeof buf, &n, nullptr) || n == 0) break;
            if (out.text.size() < max_bytes)
                out.text.append(buf, std::min<std::size_t>(n, max_bytes - out.text.size()));
            continue;
        }
        if (WaitForSingleObject(started.process.get(), 10) == WAIT_OBJECT_0) {
            available = 0;
            if (!PeekNamedPipe(reader.get(), nullptr, 0, nullptr, &available, nullptr) ||
                available == 0)
                break;
        }
        if (now_ns() >= deadline || (stop && stop())) {
            out.timed_out = true;
            TerminateJobObject(started.job.get(), 1);
            break;
        }
    }
    WaitForSingleObject(started.process.get(), 1000);
    DWORD code = 0;
    GetExitCodeProcess(started.process.get(), &code);
    out.status.exited = !out.timed_out;
    out.status.code = static_cast<int>(code);
    return out;
}

std::string find_program(const std::string &program) {
    auto exists = [](const std::string &path) {
        const DWORD attributes = GetFileAttributesW(windows::widen(path).c_str());
        return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
    };
    if (program.find_first_of("/\\") != std::string::npos) return exists(program) ? program : "";
    const char *path = std::getenv("PATH");
    std::stringstream folders(path != nullptr ? path : "");
    std::string folder;
    while (std::getline(folders, folder, ';')) {
        if (folder.empty()) continue;
        for (const char *suffix : {"", ".exe"}) {
            const std::string candidate = folder + "\\" + program + suffix;
            if (exists(candidate)) return candidate;
        }
    }
    return "";
}

}  // namespace ipcbench::platform
