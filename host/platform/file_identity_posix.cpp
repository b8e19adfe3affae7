#include "platform/file_identity.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

namespace ipcbench::platform {

std::string file_identity(const std::filesystem::path &file) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) return "";
    return fmt::format("{}:{}:{}:{}.{:09}:{}.{:09}", st.st_dev, st.st_ino, st.st_size,
                       st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec,
                       st.st_ctim.tv_nsec);
}

}  // namespace ipcbench::platform
