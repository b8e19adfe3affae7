#include "platform/open_file_limit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "platform/os_calls.hpp"

namespace ipcbench::platform {

std::string ensure_open_files(std::uint64_t needed) {
    rlimit limit{};
    if (IPCBENCH_OS_CALL(getrlimit)(RLIMIT_NOFILE, &limit) != 0)
        return std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno);
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= needed) return "";
    rlimit wanted = limit;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
        // Only a privileged process may raise the hard limit, and never past fs.nr_open.
        std::uint64_t nr_open = 0;
        std::ifstream("/proc/sys/fs/nr_open") >> nr_open;
        wanted.rlim_max = nr_open >= needed ? needed : limit.rlim_max;
    }
    wanted.rlim_cur =
        wanted.rlim_max == RLIM_INFINITY || wanted.rlim_max >= needed ? needed : wanted.rlim_max;
    if (IPCBENCH_OS_CALL(setrlimit)(RLIMIT_NOFILE, &wanted) != 0) {
        wanted.rlim_max = limit.rlim_max;  // not allowed to raise the hard limit: the soft one
        wanted.rlim_cur = limit.rlim_max;
        IPCBENCH_OS_CALL(setrlimit)(RLIMIT_NOFILE, &wanted);
    }
    if (wanted.rlim_cur >= needed) return "";
    return "needs about " + std::to_string(needed) +
           " open descriptors per process, but RLIMIT_NOFILE allows " +
           std::to_string(wanted.rlim_cur) +
           " (hard limit; fs.nr_open caps root). Raise it with 'ulimit -Hn " +
           std::to_string(needed) +
           "' as root or a nofile line in /etc/security/limits.conf, "
           "or use fewer --streams";
}

}  // namespace ipcbench::platform
