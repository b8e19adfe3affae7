#include "platform/process_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ipcbench::platform {

std::string process_identity(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');  // the name may hold spaces and parentheses
    if (close == std::string::npos) return "";
    std::istringstream fields(stat.substr(close + 2));
    std::string field, state;
    fields >> state;
    if (state == "Z" || state == "X") return "";  // dead, not yet reaped
    // Field 22 of /proc/PID/stat is the start time; after ')' come fields 3, 4, ...
    for (int i = 4; i <= 22 && fields >> field; ++i) {
    }
    return field.empty() ? "" : std::to_string(pid) + ":" + field;
}

std::string self_identity() {
    return process_identity(static_cast<long>(getpid()));
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
