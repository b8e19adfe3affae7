#include "platform/file_trust.hpp"

#include "platform/windows_api.hpp"

#include <aclapi.h>
#include <sddl.h>

#include <array>

namespace ipcbench::platform {
namespace {

// Groups that stand for "every user" on Windows: Everyone, Authenticated Users, Users, Guests.
constexpr std::array<const wchar_t *, 4> broad_groups{L"S-1-1-0", L"S-1-5-11", L"S-1-5-32-545",
                                                      L"S-1-5-32-546"};
constexpr ACCESS_MASK write_rights = FILE_WRITE_DATA | FILE_APPEND_DATA | WRITE_DAC | WRITE_OWNER |
                                     GENERIC_WRITE | GENERIC_ALL | DELETE;

std::string sid_text(PSID sid) {
    wchar_t *text = nullptr;
    if (!ConvertSidToStringSidW(sid, &text)) return "";
    std::string out = windows::narrow(text);
    LocalFree(text);
    return out;
}

}  // namespace

// The Windows counterpart of "mode o+w": an allow entry that lets a group of every user write,
// replace or re-permission the file or folder.
std::string untrusted_reason(const std::filesystem::path &path) {
    PACL dacl = nullptr;
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    if (GetNamedSecurityInfoW(path.wstring().c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION,
                              nullptr, nullptr, &dacl, nullptr, &descriptor) != ERROR_SUCCESS)
        return "";  // reading it will say what is wrong
    std::string reason;
    if (dacl == nullptr) reason = "writable by every user (it has no access control list)";
    for (DWORD i = 0; dacl && reason.empty() && i < dacl->AceCount; ++i) {
        ACE_HEADER *header = nullptr;
        if (!GetAce(dacl, i, reinterpret_cast<void **>(&header)) ||
            header->AceType != ACCESS_ALLOWED_ACE_TYPE || (header->AceFlags & INHERIT_ONLY_ACE))
            continue;
        auto *ace = reinterpret_cast<ACCESS_ALLOWED_ACE *>(header);
        if ((ace->Mask & write_rights) == 0) continue;
        const std::string sid = sid_text(&ace->SidStart);
        for (const wchar_t *group : broad_groups)
            if (sid == windows::narrow(group))
                reason = "writable by every user (its access list lets " + sid + " write)";
    }
    LocalFree(descriptor);
    return reason;
}

// Windows: the folder's own access list (the walk up to the root is POSIX only; said in
// docs/platforms.md).
std::string untrusted_folder_reason(const std::filesystem::path &folder) {
    return untrusted_reason(folder);
}

// Windows: each entry's own access list, as for a plugin file.
std::string untrusted_tree_reason(const std::filesystem::path &folder, std::size_t max_entries) {
    std::error_code ec;
    std::size_t seen = 0;
    for (std::filesystem::recursive_directory_iterator it(folder, ec), end; !ec && it != end;
         it.increment(ec)) {
        if (++seen > max_entries)
            return folder.string() + " holds more than " + std::to_string(max_entries) +
                   " files: too many to check";
        if (std::string why = untrusted_reason(it->path()); !why.empty())
            return it->path().string() + " is " + why;
    }
    return ec ? folder.string() + " cannot be read (" + ec.message() + ")" : "";
}

// A folder someone else could write into: a link (reparse point) or one whose access list
// lets every user write.
std::string foreign_folder_reason(const std::filesystem::path &folder) {
    const DWORD attributes = GetFileAttributesW(folder.wstring().c_str());
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
        return "a link";
    return untrusted_reason(folder);
}

}  // namespace ipcbench::platform
