#include "platform/private_file.hpp"

#include "platform/windows_api.hpp"

#include <shlobj.h>

#include <stdexcept>

namespace ipcbench::platform {
namespace {

std::runtime_error failure(const std::string &what, const std::filesystem::path &path) {
    return std::runtime_error(what + " '" + path.string() + "': " + windows::last_error_text());
}

std::filesystem::path private_folder(const std::filesystem::path &path) {
    windows::owner_only_security security;
    if (!CreateDirectoryW(path.wstring().c_str(), security.attributes()) &&
        GetLastError() != ERROR_ALREADY_EXISTS)
        throw failure("cannot create", path);
    const DWORD attributes = GetFileAttributesW(path.wstring().c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES || !(attributes & FILE_ATTRIBUTE_DIRECTORY) ||
        (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
        throw std::runtime_error("'" + path.string() + "' is not a folder of this user; remove it");
    return path;
}

}  // namespace

// The file gets an access list for the current user only; an existing reparse point (a link
// planted in its place) is refused rather than followed.
void write_private_file(const std::filesystem::path &path, const std::string &content) {
    windows::owner_only_security security;
    windows::unique_handle h(
        CreateFileW(path.wstring().c_str(), GENERIC_WRITE, 0, security.attributes(), CREATE_ALWAYS,
                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!h) throw failure("cannot write", path);
    FILE_ATTRIBUTE_TAG_INFO tag{};
    if (GetFileInformationByHandleEx(h.get(), FileAttributeTagInfo, &tag, sizeof tag) &&
        (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
        throw std::runtime_error("'" + path.string() + "' is a link; remove it");
    DWORD written = 0;
    if (!WriteFile(h.get(), content.data(), static_cast<DWORD>(content.size()), &written,
                   nullptr) ||
        written != content.size())
        throw failure("cannot write a private file", path);
}

void create_new_file(const std::filesystem::path &path, const std::string &content) {
    windows::unique_handle h(
        CreateFileW(path.wstring().c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!h) throw failure("cannot create", path);
    DWORD written = 0;
    if (!WriteFile(h.get(), content.data(), static_cast<DWORD>(content.size()), &written,
                   nullptr) ||
        written != content.size())
        throw failure("cannot write", path);
}

// Windows keeps who may read a file in its access list, which this does not judge: a regular
// file, not a link, of bounded size (docs/platforms.md says so).
std::string read_private_file(const std::filesystem::path &path, std::size_t max_bytes) {
    windows::unique_handle h(
        CreateFileW(path.wstring().c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!h) throw failure("cannot read", path);
    FILE_ATTRIBUTE_TAG_INFO tag{};
    if (GetFileInformationByHandleEx(h.get(), FileAttributeTagInfo, &tag, sizeof tag) &&
        (tag.FileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY)))
        throw std::runtime_error("refused the secret file '" + path.string() +
                                 "': it is a link or a folder");
    std::string content;
    char buf[512];
    DWORD n = 0;
    while (ReadFile(h.get(), buf, sizeof buf, &n, nullptr) && n > 0) {
        content.append(buf, n);
        if (content.size() > max_bytes)
            throw std::runtime_error("refused the secret file '" + path.string() +
                                     "': it is larger than " + std::to_string(max_bytes) +
                                     " bytes");
    }
    return content;
}

// %LOCALAPPDATA%\ipcbench, else a folder under %TEMP%.
std::filesystem::path user_state_dir() {
    wchar_t *local = nullptr;
    if (SHGetKnownFolderPath(FOLDERID_LocalAppData, 0, nullptr, &local) == S_OK) {
        const std::filesystem::path base(local);
        CoTaskMemFree(local);
        return private_folder(base / "ipcbench");
    }
    return private_folder(std::filesystem::temp_directory_path() / "ipcbench");
}

// An elevated (administrator) token is what root is on Unix here.
bool running_as_root() {
    HANDLE token = nullptr;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return false;
    TOKEN_ELEVATION elevation{};
    DWORD size = 0;
    const bool elevated =
        GetTokenInformation(token, TokenElevation, &elevation, sizeof elevation, &size) &&
        elevation.TokenIsElevated != 0;
    CloseHandle(token);
    return elevated;
}

}  // namespace ipcbench::platform
