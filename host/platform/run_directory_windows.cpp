#include "platform/run_directory.hpp"

#include "platform/windows_api.hpp"

#include <fstream>
#include <random>
#include <stdexcept>

#include "platform/process_identity.hpp"

namespace ipcbench::platform {

// Under %TEMP%, with an access list for the current user only (what 0700 is on POSIX), and a
// random name, made with CreateDirectory so an existing folder of that name is never reused.
run_directory::run_directory() {
    windows::owner_only_security security;
    std::random_device random;
    for (int attempt = 0; attempt < 16 && path_.empty(); ++attempt) {
        const std::filesystem::path candidate =
            temp_root() /
            (std::string(prefix) + std::to_string(random()) + std::to_string(random()));
        if (CreateDirectoryW(candidate.wstring().c_str(), security.attributes()))
            path_ = candidate;
        else if (GetLastError() != ERROR_ALREADY_EXISTS)
            throw std::runtime_error("cannot create a private run directory in " +
                                     temp_root().string() + ": " + windows::last_error_text() +
                                     " (set TEMP to a writable folder)");
    }
    if (path_.empty()) throw std::runtime_error("cannot find a free run directory name");
    std::ofstream(path_ / owner_file) << self_identity() << "\n";
}

run_directory::~run_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace ipcbench::platform
