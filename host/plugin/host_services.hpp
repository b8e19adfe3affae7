#pragma once

#include "ipcbench/transport.h"

namespace ipcbench::plugin {

// The ipcb_host every plugin receives: ABI version and a log callback into spdlog.
const ipcb_host &host_services();

}  // namespace ipcbench::plugin
