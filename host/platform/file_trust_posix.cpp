#include "platform/file_trust.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace ipcbench::platform {

std::string untrusted_reason(const std::filesystem::path &path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return "";  // reading it will say what is wrong
    // A sticky world-writable folder (/tmp) still lets anyone add files: refused as well.
    if (st.st_mode & S_IWOTH)
        return fmt::format("writable by every user (mode {:04o})", st.st_mode & 07777);
    const uid_t me = geteuid();
    if (me == 0 && st.st_uid != 0)
        return fmt::format("owned by uid {} while ipchost runs as root", st.st_uid);
    if (me != 0 && st.st_uid != 0 && st.st_uid != me)
        return fmt::format("owned by uid {}, neither root nor this user (uid {})", st.st_uid, me);
    return "";
}

}  // namespace ipcbench::platform
