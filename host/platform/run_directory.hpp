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

    static constexpr const char *prefix = "ipcbench-run-";
    static constexpr const char *owner_file = ".owner";  // process_identity() of the maker
    static constexpr const char *manifest_file = ".cleanup.json";  // named OS objects to remove

private:
    std::filesystem::path path_;
};

}  // namespace ipcbench::platform
