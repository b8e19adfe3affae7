#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kit/kit_manifest.hpp"

namespace ipcbench::kit {

// A kit is code ipchost runs (as root, often): it is held to the rules a plugin folder is
// (platform/file_trust.hpp, OpenSSH's StrictModes). Refused, with the reason, before anything of
// it runs (the runtime-version probe included), whatever folder named it (--kit-dir,
// IPCBENCH_KIT_PATH or the default):
//   - the manifest, when it is a symbolic link (it would lend another kit's name and checks to
//     this folder's code), or others could change it;
//   - the kit folder and every folder above it, as given and as resolved;
//   - everything inside the folder (the worker's scripts, modules, jars, assemblies, libraries);
//   - each program and file the manifest's commands name (the runtime found on PATH, a script
//     or jar named by an absolute path), and the folder it lives in.

// Before the manifest is read: "" or why the folder and its manifest are refused.
std::string untrusted_kit_folder(const std::filesystem::path &folder);
// After it is read: "" or why a program or file its commands name is refused (a program is
// judged where PATH finds it; one not found runs nothing and is reported as missing).
std::string untrusted_kit_commands(const std::filesystem::path &folder, const kit_manifest &m);

// A program a kit runs (its worker's argv[0], the runtime its launcher starts), found by
// ipchost and held to the rules above: a bare name is looked up on ipchost's PATH (the first
// executable of that name is the one judged: a later, trusted one is never silently taken), a
// path must be absolute; the file, its folder and the folders above it, and every link on the
// way to the file it resolves to with that link's folder. `path` is the resolved absolute file,
// what is executed; `problem` says why not (`missing` when nothing of that name was found).
struct checked_program {
    std::string path;
    std::string problem;
    bool missing = false;
};
checked_program check_program(const std::string &name);

// The runtime a kit's launcher starts (the manifest's "runtime", or the program the user's
// `runtime_variable` names in ipchost's environment), checked as above; an empty path and no
// problem for a kit that names none. `environment`: ipchost's (NAME=VALUE entries).
checked_program check_runtime(const kit_manifest &m, const std::vector<std::string> &environment);

// The advice that goes with every refusal.
inline constexpr const char *kit_trust_advice =
    "make the kit folder, every folder above it and every file it holds or names writable only "
    "by their owner (chmod go-w), owned by you or root; a manifest must be a file, not a link";

}  // namespace ipcbench::kit
