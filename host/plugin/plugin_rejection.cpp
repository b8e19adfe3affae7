#include "plugin/plugin_rejection.hpp"

namespace ipcbench::plugin {

std::string plugin_rejection::describe() const {
    std::string text = file.string() + ": rejected [" + code + "]: " + reason;
    if (!fix.empty()) text += " (" + fix + ")";
    return text;
}

}  // namespace ipcbench::plugin
