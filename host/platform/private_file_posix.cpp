#include "platform/private_file.hpp"

#include "platform/os_calls.hpp"

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

// All of content, however many writes it takes: a signal (EINTR) or a short write is retried; any
// other failure (ENOSPC: the disk is full) leaves errno set and returns false.
bool write_all(int fd, const std::string &content) {
    for (std::size_t done = 0; done < content.size();) {
        const ssize_t n = IPCBENCH_OS_CALL(write)(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;  // write on: nothing of it was taken
        if (n <= 0) {
            if (n == 0) errno = EIO;  // a regular file never takes nothing: not a success
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

void write_private_file(const std::filesystem::path &path, const std::string &content) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw failure("cannot write", path);
    struct stat st {};
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              fchmod(fd, 0600) == 0 && ftruncate(fd, 0) == 0;
    ok = ok && write_all(fd, content);
    const int saved = errno;
    close(fd);
    errno = saved;
    if (!ok) throw failure("cannot write a private file", path);
}

void create_new_file(const std::filesystem::path &path, const std::string &content) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw failure("cannot create", path);
    bool ok = write_all(fd, content);
    const int saved = errno;
    ok = close(fd) == 0 && ok;
    errno = saved;
    if (!ok) throw failure("cannot write", path);
}

std::string read_private_file(const std::filesystem::path &path, std::size_t max_bytes) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw failure("cannot read", path);
    struct stat st {};
    std::string problem;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        problem = "is not a regular file";
    else if (st.st_uid != geteuid())
        problem = "belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                  std::to_string(geteuid()) + "): another user could read or replace it";
    else if (st.st_mode & 077)
        problem = "can be read or changed by others (mode " +
                  std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                  std::to_string(st.st_mode & 7) + "); chmod 600 '" + path.string() + "'";
    else if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
        problem = "is larger than " + std::to_string(max_bytes) + " bytes";
    std::string content;
    // To its end, however many reads it takes: a signal (EINTR) is retried, where stopping
    // would hand on the first part of a secret as the whole; any other failure is named.
    for (char buf[512]; problem.empty();) {
        const ssize_t n = IPCBENCH_OS_CALL(read)(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;  // read on: the rest of the secret is there
        if (n < 0) problem = std::string("could not be read to its end: ") + std::strerror(errno);
        if (n <= 0) break;
        content.append(buf, static_cast<std::size_t>(n));
        if (content.size() > max_bytes)
            problem = "is larger than " + std::to_string(max_bytes) + " bytes";
    }
    close(fd);
    if (!problem.empty())
        throw std::runtime_error("refused the secret file '" + path.string() + "': it " + problem);
    return content;
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
