#include "platform/process_identity.hpp"

#include "platform/windows_api.hpp"

#include <aclapi.h>
#include <sddl.h>
#include <tlhelp32.h>

namespace ipcbench::platform {
namespace {

// The process's creation time (100 ns since 1601): with the pid, unique over time.
std::string creation_time(long pid) {
    windows::unique_handle h(
        OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid)));
    if (!h) return "";
    FILETIME created{}, exited{}, kernel{}, user{};
    DWORD code = 0;
    if (!GetProcessTimes(h.get(), &created, &exited, &kernel, &user) ||
        !GetExitCodeProcess(h.get(), &code) || code != STILL_ACTIVE)
        return "";
    return std::to_string((static_cast<unsigned long long>(created.dwHighDateTime) << 32) |
                          created.dwLowDateTime);
}

std::string owner_of(const std::filesystem::path &path) {
    PSID owner = nullptr;
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    if (GetNamedSecurityInfoW(path.wstring().c_str(), SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION,
                              &owner, nullptr, nullptr, nullptr, &descriptor) != ERROR_SUCCESS)
        return "";
    wchar_t *text = nullptr;
    std::string out;
    if (ConvertSidToStringSidW(owner, &text)) {
        out = windows::narrow(text);
        LocalFree(text);
    }
    LocalFree(descriptor);
    return out;
}

}  // namespace

std::optional<process_status> read_process_status(long pid) {
    windows::unique_handle snapshot(CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0));
    if (!snapshot) return std::nullopt;
    PROCESSENTRY32W entry{};
    entry.dwSize = sizeof entry;
    for (BOOL more = Process32FirstW(snapshot.get(), &entry); more;
         more = Process32NextW(snapshot.get(), &entry)) {
        if (static_cast<long>(entry.th32ProcessID) != pid) continue;
        process_status status;
        status.name = windows::narrow(entry.szExeFile);
        status.parent = static_cast<long>(entry.th32ParentProcessID);
        status.start_time = creation_time(pid);
        status.state = status.start_time.empty() ? 'Z' : 'R';  // exited, handles still open
        return status;
    }
    return std::nullopt;
}

std::string process_identity(long pid) {
    const std::string start = creation_time(pid);
    return start.empty() ? "" : std::to_string(pid) + ":" + start;
}

std::string self_identity() {
    return process_identity(current_process_id());
}

long current_process_id() {
    return static_cast<long>(GetCurrentProcessId());
}

std::size_t open_handle_count() {
    DWORD count = 0;
    return GetProcessHandleCount(GetCurrentProcess(), &count) ? count : 0;
}

std::filesystem::path temp_root() {
    wchar_t buffer[MAX_PATH + 1] = {};
    const DWORD n = GetTempPathW(MAX_PATH + 1, buffer);
    if (n == 0 || n > MAX_PATH) return std::filesystem::temp_directory_path();
    return std::filesystem::path(buffer);
}

// %TEMP% is the user's own folder already; the owner is checked all the same.
std::vector<std::filesystem::path> own_private_folders(const std::string &prefix) {
    std::vector<std::filesystem::path> out;
    std::wstring me;
    try {
        me = windows::owner_only_security().user_sid();
    } catch (const std::exception &) {
        return out;
    }
    std::error_code ec;
    for (std::filesystem::directory_iterator it(temp_root(), ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().filename().string().rfind(prefix, 0) != 0) continue;
        if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
        if (owner_of(it->path()) != windows::narrow(me)) continue;
        out.push_back(it->path());
    }
    return out;
}

}  // namespace ipcbench::platform
