#include "platform/named_objects.hpp"

namespace ipcbench::platform {

bool named_object_exists(const std::string &) {
    return false;
}

}  // namespace ipcbench::platform
