#pragma once

#include <string>

namespace ipcbench::platform {

// Whether the named OS object an endpoint address names still exists, for the names whose
// namespace the host knows itself. Windows: a named pipe ("\\.\pipe\..."; probed with CreateFile,
// which finds any instance still open) or a file mapping ("Local\..." / "Global\...").
// POSIX: always false; the leak checks list /dev/shm, /dev/mqueue and /proc/sysvipc instead.
// Windows' handle count (open_handle_count) says nothing under wine, where it is always 0: there
// this is what finds a leaked pipe.
bool named_object_exists(const std::string &address);

}  // namespace ipcbench::platform
