#pragma once

#include <filesystem>

namespace ipcbench::platform {

// A private (0700) directory for one run's file-system objects (FIFOs, socket files). Removed with
// everything in it when the object goes away, whatever the plugins left there.
class run_directory {
public:
    run_directory();
    ~run_directory();
    run_directory(const run_directory &) = delete;
    run_directory &operator=(const run_directory &) = delete;

    const std::filesystem::path &path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace ipcbench::platform
