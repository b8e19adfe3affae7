#pragma once

#include <stdexcept>

namespace ipcbench::cli {

// Bad command-line input: printed as one line, exit code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace ipcbench::cli
