#include "platform/windows_api.hpp"

#include <sddl.h>

#include <stdexcept>

namespace ipcbench::platform::windows {

std::wstring widen(const std::string &utf8) {
    if (utf8.empty()) return {};
    const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()),
                                      nullptr, 0);
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
    const DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                       FORMAT_MESSAGE_IGNORE_INSERTS,
                                   nullptr, code, 0, reinterpret_cast<wchar_t *>(&buffer), 0,
                                   nullptr);
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
    const bool ok = GetTokenInformation(token, TokenUser, buffer.data(), size, &size) &&
                    ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER *>(buffer.data())->User.Sid,
                                           &text);
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

}  // namespace ipcbench::platform::windows
