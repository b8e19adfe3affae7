#include "platform/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ipcbench::platform {
namespace {

std::runtime_error failure(const std::string &what, const std::filesystem::path &path) {
    return std::runtime_error(what + " '" + path.string() + "': " + std::strerror(errno));
}

std::filesystem::path private_folder(const std::filesystem::path &path) {
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) throw failure("cannot create", path);
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) throw failure("cannot inspect", path);
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0)
        throw std::runtime_error("'" + path.string() +
                                 "' is not a private folder of this user (mode 0700); remove it");
    return path;
}

}  // namespace

void write_private_file(const std::filesystem::path &path, const std::string &content) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw failure("cannot write", path);
    struct stat st {};
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              fchmod(fd, 0600) == 0 && ftruncate(fd, 0) == 0;
    for (std::size_t done = 0; ok && done < content.size();) {
        const ssize_t n = write(fd, content.data() + done, content.size() - done);
        ok = n > 0;
        if (ok) done += static_cast<std::size_t>(n);
    }
    const int saved = errno;
    close(fd);
    errno = saved;
    if (!ok) throw failure("cannot write a private file", path);
}

std::filesystem::path user_state_dir() {
    if (const char *runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime == '/')
        return private_folder(std::filesystem::path(runtime) / "ipcbench");
    if (const char *home = std::getenv("HOME"); home && *home == '/') {
        const std::filesystem::path cache = std::filesystem::path(home) / ".cache";
        if (mkdir(cache.c_str(), 0700) == 0 || errno == EEXIST)
            return private_folder(cache / "ipcbench");
    }
    return private_folder(std::filesystem::temp_directory_path() /
                          ("ipcbench-" + std::to_string(geteuid())));
}

bool running_as_root() {
    return geteuid() == 0;
}

}  // namespace ipcbench::platform
