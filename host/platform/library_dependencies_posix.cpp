#include "platform/library_dependencies.hpp"

namespace ipcbench::platform {

std::vector<std::string> missing_dependencies(const std::filesystem::path &) {
    return {};
}

std::string load_error_text(int) {
    return "";  // dlerror's text is in the exception already
}

const char *dependency_tool_hint() {
    return "ldd";
}

}  // namespace ipcbench::platform
