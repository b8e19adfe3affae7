#include "platform/named_objects.hpp"

#include "platform/windows_api.hpp"

namespace ipcbench::platform {

bool named_object_exists(const std::string &address) {
    const std::wstring name = windows::widen(address);
    if (address.rfind("\\\\.\\pipe\\", 0) == 0) {
        windows::unique_handle h(
            CreateFileW(name.c_str(), GENERIC_READ, 0, nullptr, OPEN_EXISTING, 0, nullptr));
        return h || GetLastError() == ERROR_PIPE_BUSY;
    }
    if (address.rfind("Local\\", 0) == 0 || address.rfind("Global\\", 0) == 0) {
        windows::unique_handle h(OpenFileMappingW(FILE_MAP_READ, FALSE, name.c_str()));
        return static_cast<bool>(h);
    }
    return false;
}

}  // namespace ipcbench::platform
