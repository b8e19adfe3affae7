#include "platform/file_identity.hpp"

#include "platform/windows_api.hpp"

#include <fmt/format.h>

namespace ipcbench::platform {

// Volume, file index, size, last write and change times: the change time cannot be set back
// through the usual calls, so a replaced or rewritten file never keeps its identity.
std::string file_identity(const std::filesystem::path &file) {
    windows::unique_handle h(CreateFileW(file.wstring().c_str(), FILE_READ_ATTRIBUTES,
                                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                         nullptr, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS,
                                         nullptr));
    if (!h) return "";
    BY_HANDLE_FILE_INFORMATION info{};
    FILE_BASIC_INFO basic{};
    if (!GetFileInformationByHandle(h.get(), &info) ||
        !GetFileInformationByHandleEx(h.get(), FileBasicInfo, &basic, sizeof basic))
        return "";
    return fmt::format("{}:{}.{}:{}.{}:{}:{}", info.dwVolumeSerialNumber, info.nFileIndexHigh,
                       info.nFileIndexLow, info.nFileSizeHigh, info.nFileSizeLow,
                       basic.LastWriteTime.QuadPart, basic.ChangeTime.QuadPart);
}

}  // namespace ipcbench::platform
