#include "platform/system_info.hpp"

#include "platform/windows_api.hpp"

#include <io.h>
#include <powrprof.h>

#include <cstdlib>
#include <thread>

namespace ipcbench::platform {
namespace {

std::string registry_string(HKEY root, const wchar_t *key, const wchar_t *value) {
    wchar_t buffer[512] = {};
    DWORD size = sizeof buffer - sizeof(wchar_t);
    if (RegGetValueW(root, key, value, RRF_RT_REG_SZ, nullptr, buffer, &size) != ERROR_SUCCESS)
        return "";
    std::string text = windows::narrow(buffer);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

// RtlGetVersion tells the truth where GetVersionEx is shimmed to the manifest's version.
std::string windows_version() {
    using rtl_get_version = LONG(WINAPI *)(OSVERSIONINFOW *);
    OSVERSIONINFOW version{};
    version.dwOSVersionInfoSize = sizeof version;
    auto get = reinterpret_cast<rtl_get_version>(
        reinterpret_cast<void *>(GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion")));
    if (get == nullptr || get(&version) != 0) return "";
    return std::to_string(version.dwMajorVersion) + "." + std::to_string(version.dwMinorVersion) +
           "." + std::to_string(version.dwBuildNumber);
}

// The active power plan's name ("Balanced", "High performance"): Windows' governor.
std::string power_plan() {
    using get_active = DWORD(WINAPI *)(HKEY, GUID **);
    using read_name =
        DWORD(WINAPI *)(HKEY, const GUID *, const GUID *, const GUID *, UCHAR *, DWORD *);
    HMODULE powrprof = LoadLibraryW(L"powrprof.dll");
    if (powrprof == nullptr) return "";
    std::string name;
    auto active = reinterpret_cast<get_active>(
        reinterpret_cast<void *>(GetProcAddress(powrprof, "PowerGetActiveScheme")));
    auto friendly = reinterpret_cast<read_name>(
        reinterpret_cast<void *>(GetProcAddress(powrprof, "PowerReadFriendlyName")));
    GUID *scheme = nullptr;
    if (active && friendly && active(nullptr, &scheme) == ERROR_SUCCESS) {
        wchar_t buffer[256] = {};
        DWORD size = sizeof buffer - sizeof(wchar_t);
        if (friendly(nullptr, scheme, nullptr, nullptr, reinterpret_cast<UCHAR *>(buffer), &size) ==
            ERROR_SUCCESS)
            name = windows::narrow(buffer);
        LocalFree(scheme);
    }
    FreeLibrary(powrprof);
    return name;
}

}  // namespace

// Windows has no load average: load_average_1m stays -1 (unreadable).
system_info read_system_info() {
    system_info info;
    info.os = "Windows";
    info.kernel = windows_version();
    SYSTEM_INFO system{};
    GetNativeSystemInfo(&system);
    info.machine = system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                   : system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "arm64"
                                                                                   : "other";
    info.cpu_model =
        registry_string(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                        L"ProcessorNameString");
    info.governor = power_plan();
    wchar_t host[256] = {};
    DWORD size = 255;
    if (GetComputerNameExW(ComputerNameDnsHostname, host, &size))
        info.hostname = windows::narrow(host);
    info.cores = std::thread::hardware_concurrency();
    return info;
}

bool stderr_is_terminal() {
    return _isatty(2) != 0;
}

void set_environment_variable(const std::string &name, const std::string &value) {
    _putenv_s(name.c_str(), value.c_str());  // an empty value removes the variable
    SetEnvironmentVariableA(name.c_str(), value.empty() ? nullptr : value.c_str());
}

std::vector<std::string> environment_variables() {
    std::vector<std::string> out;
    for (char **e = _environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
    return out;
}

std::optional<std::string> take_environment_variable(const std::string &name) {
    const char *value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    std::string out = value;
    _putenv_s(name.c_str(), "");                     // an empty value removes the variable
    SetEnvironmentVariableA(name.c_str(), nullptr);  // and from the process's own block
    return out;
}

}  // namespace ipcbench::platform
