#include "platform/run_directory.hpp"

#include <fstream>

#include "platform/os_calls.hpp"
#include "platform/process_identity.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ipcbench::platform {

run_directory::run_directory() {
    std::string pattern = (temp_root() / "ipcbench-run-XXXXXX").string();
    if (IPCBENCH_OS_CALL(mkdtemp)(pattern.data()) == nullptr)  // mkdtemp creates it with mode 0700
        throw std::runtime_error("cannot create a private run directory from " + pattern + ": " +
                                 std::strerror(errno) + " (set TMPDIR to a writable directory)");
    path_ = pattern;
    // Who made it: a later ipchost removes it (and what its manifest names) once this process is
    // gone without having done so itself (SIGKILL).
    std::ofstream(path_ / owner_file) << self_identity() << "\n";
}

run_directory::~run_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace ipcbench::platform
