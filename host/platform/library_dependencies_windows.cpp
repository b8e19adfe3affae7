#include "platform/library_dependencies.hpp"

#include "platform/windows_api.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

namespace ipcbench::platform {
namespace {

// The file offset of a relative virtual address, through the section table; 0 when outside.
std::size_t file_offset(const std::string &image, const IMAGE_SECTION_HEADER *sections,
                        unsigned count, DWORD rva) {
    for (unsigned i = 0; i < count; ++i) {
        const auto &s = sections[i];
        const DWORD size = std::max(s.Misc.VirtualSize, s.SizeOfRawData);
        if (rva >= s.VirtualAddress && rva < s.VirtualAddress + size) {
            const std::size_t at = rva - s.VirtualAddress + s.PointerToRawData;
            return at < image.size() ? at : 0;
        }
    }
    return 0;
}

// The DLL names in a 64-bit PE image's import directory ({} when it is not one).
std::vector<std::string> imported_dlls(const std::string &image) {
    std::vector<std::string> names;
    if (image.size() < sizeof(IMAGE_DOS_HEADER)) return names;
    IMAGE_DOS_HEADER dos;
    std::memcpy(&dos, image.data(), sizeof dos);
    const auto nt_at = static_cast<std::size_t>(dos.e_lfanew);
    if (dos.e_magic != IMAGE_DOS_SIGNATURE || nt_at + sizeof(IMAGE_NT_HEADERS64) > image.size())
        return names;
    IMAGE_NT_HEADERS64 nt;
    std::memcpy(&nt, image.data() + nt_at, sizeof nt);
    if (nt.Signature != IMAGE_NT_SIGNATURE ||
        nt.OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC)
        return names;
    const std::size_t sections_at =
        nt_at + offsetof(IMAGE_NT_HEADERS64, OptionalHeader) + nt.FileHeader.SizeOfOptionalHeader;
    const unsigned count = nt.FileHeader.NumberOfSections;
    if (sections_at + count * sizeof(IMAGE_SECTION_HEADER) > image.size()) return names;
    const auto *sections =
        reinterpret_cast<const IMAGE_SECTION_HEADER *>(image.data() + sections_at);
    const DWORD imports =
        nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT].VirtualAddress;
    std::size_t at = imports ? file_offset(image, sections, count, imports) : 0;
    for (; at && at + sizeof(IMAGE_IMPORT_DESCRIPTOR) <= image.size() && names.size() < 256;
         at += sizeof(IMAGE_IMPORT_DESCRIPTOR)) {
        IMAGE_IMPORT_DESCRIPTOR d;
        std::memcpy(&d, image.data() + at, sizeof d);
        if (d.Name == 0) break;
        const std::size_t name_at = file_offset(image, sections, count, d.Name);
        if (name_at == 0) break;
        const std::size_t end = image.find('\0', name_at);
        if (end == std::string::npos || end - name_at > 255) break;
        names.push_back(image.substr(name_at, end - name_at));
    }
    return names;
}

}  // namespace

std::vector<std::string> missing_dependencies(const std::filesystem::path &library) {
    std::ifstream in(library, std::ios::binary);
    const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> missing;
    for (const auto &name : imported_dlls(image)) {
        // As the loader searches: the DLL's own folder first, then the system's.
        const std::wstring beside = (library.parent_path() / name).wstring();
        HMODULE found = LoadLibraryExW(beside.c_str(), nullptr, LOAD_LIBRARY_AS_DATAFILE);
        if (found == nullptr)
            found = LoadLibraryExW(windows::widen(name).c_str(), nullptr, LOAD_LIBRARY_AS_DATAFILE);
        if (found == nullptr)
            missing.push_back(name);
        else
            FreeLibrary(found);
    }
    return missing;
}

std::string load_error_text(int code) {
    return code ? windows::error_text(static_cast<DWORD>(code)) : "";
}

const char *dependency_tool_hint() {
    return "objdump -p or Dependencies.exe";
}

}  // namespace ipcbench::platform
