#include "platform/process_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ipcbench::platform {

namespace {

// The whole of a /proc file, or "" when it cannot be read: a process that exits while it is read
// makes read() fail with ESRCH, which std::filebuf turns into an exception.
std::string read_proc_file(const std::string &path) {
    try {
        std::ifstream in(path);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    } catch (const std::exception &) {
        return "";
    }
}

}  // namespace

std::optional<process_status> read_process_status(long pid) {
    const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
    // "pid (name) state ppid ... starttime ...": the name may hold spaces and parentheses, so
    // the fields are read after the last ')'.
    const auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return std::nullopt;
    process_status status;
    status.name = stat.substr(open + 1, close - open - 1);
    std::istringstream fields(stat.substr(close + 1));
    std::string field;
    fields >> status.state >> status.parent;
    for (int i = 5; i <= 22 && fields >> field; ++i) {  // field 22 is the start time
    }
    status.start_time = field;
    if (!fields) return std::nullopt;
    return status;
}

std::string process_identity(long pid) {
    const auto status = read_process_status(pid);
    if (!status || status->state == 'Z' || status->state == 'X') return "";  // gone or dying
    return std::to_string(pid) + ":" + status->start_time;
}

std::string self_identity() {
    return process_identity(current_process_id());
}

long current_process_id() {
    return static_cast<long>(getpid());
}

std::size_t open_handle_count() {
    std::size_t n = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
         it.increment(ec))
        ++n;
    return n;
}

std::filesystem::path temp_root() {
    const char *tmp = std::getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

std::vector<std::filesystem::path> own_private_folders(const std::string &prefix) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(temp_root(), ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().filename().string().rfind(prefix, 0) != 0) continue;
        struct stat st {};
        if (lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) continue;
        out.push_back(it->path());
    }
    return out;
}

}  // namespace ipcbench::platform
