#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ipcbench::platform {

// The libraries `library` imports that this system cannot find, for a load failure's message.
// Windows: the PE import table's DLL names, each looked up as the loader would (LoadLibraryEx as
// a data file: no code runs); LoadLibrary itself only says "module not found". POSIX: empty
// (dlerror already names the missing .so).
std::vector<std::string> missing_dependencies(const std::filesystem::path &library);

// The system's words for the error code a failed load reported ("" when it has none): Windows'
// FormatMessage, which the C++ runtime's text lacks under mingw ("Unknown error code").
std::string load_error_text(int code);

// How to list a library's dependencies on this system, for the fix of a load failure.
const char *dependency_tool_hint();

}  // namespace ipcbench::platform
