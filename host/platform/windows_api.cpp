#include "platform/windows_api.hpp"

#include <sddl.h>

#include <cstdio>
#include <stdexcept>

namespace ipcbench::platform::windows {

std::wstring widen(const std::string &utf8) {
    if (utf8.empty()) return {};
    const int n =
        MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
    std::wstring out(static_cast<std::size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
    return out;
}

std::string narrow(const std::wstring &utf16) {
    if (utf16.empty()) return {};
    const int n = WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()),
                                      nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(n), '\0');
    WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()), out.data(), n,
                        nullptr, nullptr);
    return out;
}

std::string error_text(DWORD code) {
    wchar_t *buffer = nullptr;
    const DWORD n = FormatMessageW(
        FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
        nullptr, code, 0, reinterpret_cast<wchar_t *>(&buffer), 0, nullptr);
    std::string text = n > 0 ? narrow(std::wstring(buffer, n)) : "unknown error";
    if (buffer) LocalFree(buffer);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    return text + " (error " + std::to_string(code) + ")";
}

namespace {

std::wstring current_user_sid() {
    HANDLE token = nullptr;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        throw std::runtime_error("cannot read this process's user: " + last_error_text());
    DWORD size = 0;
    GetTokenInformation(token, TokenUser, nullptr, 0, &size);
    std::string buffer(size, '\0');
    wchar_t *text = nullptr;
    const bool ok =
        GetTokenInformation(token, TokenUser, buffer.data(), size, &size) &&
        ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER *>(buffer.data())->User.Sid, &text);
    CloseHandle(token);
    if (!ok) throw std::runtime_error("cannot read this process's user: " + last_error_text());
    std::wstring sid(text);
    LocalFree(text);
    return sid;
}

}  // namespace

owner_only_security::owner_only_security() : sid_(current_user_sid()) {
    // P: protected (no inherited entries); GA: generic all; OICI: folders pass it on to what is
    // created inside them.
    const std::wstring sddl = L"D:P(A;OICI;GA;;;" + sid_ + L")";
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1,
                                                              &descriptor, nullptr))
        throw std::runtime_error("cannot build a private security descriptor: " +
                                 last_error_text());
    attributes_.nLength = sizeof attributes_;
    attributes_.lpSecurityDescriptor = descriptor;
    attributes_.bInheritHandle = FALSE;
}

owner_only_security::~owner_only_security() {
    LocalFree(attributes_.lpSecurityDescriptor);
}

std::wstring quote_argument(const std::wstring &argument) {
    if (!argument.empty() && argument.find_first_of(L" \t\n\v\"") == std::wstring::npos)
        return argument;
    std::wstring out = L"\"";
    std::size_t backslashes = 0;
    for (wchar_t c : argument) {
        if (c == L'\\') {
            ++backslashes;
            continue;
        }
        out.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
        backslashes = 0;
        out.push_back(c);
    }
    out.append(backslashes * 2, L'\\');
    return out + L"\"";
}

std::wstring command_line(const std::string &program, const std::vector<std::string> &args) {
    std::wstring line = quote_argument(widen(program));
    for (const auto &arg : args) line += L" " + quote_argument(widen(arg));
    return line;
}

unique_handle null_device(bool for_writing) {
    SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    return unique_handle(CreateFileW(L"NUL", for_writing ? GENERIC_WRITE : GENERIC_READ,
                                     FILE_SHARE_READ | FILE_SHARE_WRITE, &inheritable,
                                     OPEN_EXISTING, 0, nullptr));
}

job_process start_in_job(const std::string &program, const std::vector<std::string> &args,
                         HANDLE std_in, HANDLE std_out, HANDLE std_err, std::vector<HANDLE> inherit,
                         const std::function<void(long pid)> &before_resume,
                         const std::vector<std::string> *environment) {
    job_process out;
    out.job.reset(CreateJobObjectW(nullptr, nullptr));
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    if (!out.job || !SetInformationJobObject(out.job.get(), JobObjectExtendedLimitInformation,
                                             &limits, sizeof limits))
        throw std::runtime_error("cannot make a Job object for a child process: " +
                                 last_error_text());
    for (HANDLE h : {std_in, std_out, std_err}) inherit.push_back(h);
    for (HANDLE h : inherit) SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    // Only these handles go to the child, not every inheritable one this process holds.
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    std::string storage(size, '\0');
    auto *attributes = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage.data());
    const bool listed =
        InitializeProcThreadAttributeList(attributes, 1, 0, &size) &&
        UpdateProcThreadAttribute(attributes, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit.data(),
                                  inherit.size() * sizeof(HANDLE), nullptr, nullptr);
    STARTUPINFOEXW startup{};
    startup.StartupInfo.cb = sizeof startup;
    startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    startup.StartupInfo.hStdInput = std_in;
    startup.StartupInfo.hStdOutput = std_out;
    startup.StartupInfo.hStdError = std_err;
    startup.lpAttributeList = listed ? attributes : nullptr;
    std::wstring line = command_line(program, args);
    std::wstring block;  // NAME=VALUE\0 ... \0
    if (environment != nullptr) {
        for (const auto &entry : *environment) block += widen(entry) + L'\0';
        block += L'\0';
    }
    PROCESS_INFORMATION info{};
    const DWORD flags =
        CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | (listed ? EXTENDED_STARTUPINFO_PRESENT : 0);
    const BOOL started = CreateProcessW(widen(program).c_str(), line.data(), nullptr, nullptr, TRUE,
                                        flags, environment != nullptr ? block.data() : nullptr,
                                        nullptr, &startup.StartupInfo, &info);
    const DWORD error = GetLastError();
    if (listed) DeleteProcThreadAttributeList(attributes);
    for (HANDLE h : inherit) SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
    if (!started) throw std::runtime_error("cannot start " + program + ": " + error_text(error));
    out.process.reset(info.hProcess);
    unique_handle thread(info.hThread);
    if (!AssignProcessToJobObject(out.job.get(), info.hProcess)) {
        const std::string why = last_error_text();
        TerminateProcess(info.hProcess, 1);
        throw std::runtime_error("cannot put a child process in its Job object: " + why);
    }
    out.pid = static_cast<long>(info.dwProcessId);
    if (before_resume) {
        try {
            before_resume(out.pid);
        } catch (...) {
            TerminateProcess(info.hProcess, 1);
            throw;
        }
    }
    ResumeThread(info.hThread);
    return out;
}

std::string describe_exit_code(DWORD code) {
    if (code < 0xC0000000u) return "exit code " + std::to_string(code);
    const char *name = code == 0xC0000005u   ? "access violation"
                       : code == 0xC00000FDu ? "stack overflow"
                       : code == 0xC0000409u ? "stack buffer overrun or abort"
                       : code == 0xC000001Du ? "illegal instruction"
                       : code == 0xC0000094u ? "integer division by zero"
                       : code == 0xC0000135u ? "a DLL it needs was not found"
                                             : "an unhandled exception";
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(code));
    return std::string("exception ") + hex + " (" + name + ")";
}

}  // namespace ipcbench::platform::windows
