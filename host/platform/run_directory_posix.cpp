#include "platform/run_directory.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ipcbench::platform {

run_directory::run_directory() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ipcbench-run-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)  // mkdtemp creates it with mode 0700
        throw std::runtime_error("cannot create a private run directory from " + pattern + ": " +
                                 std::strerror(errno) + " (set TMPDIR to a writable directory)");
    path_ = pattern;
}

run_directory::~run_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace ipcbench::platform
