#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace ipcbench::platform {

// A loader of code refuses what other users could have replaced, as OpenSSH's StrictModes does
// for its keys. Each returns "" when the path is fine, else the reason ("writable by every user
// (mode 0777)", "owned by uid 1000 while ipchost runs as root").
//
// The file itself: a regular file owned by root or this user (by root only when ipchost runs as
// root), writable by neither group nor others.
std::string untrusted_reason(const std::filesystem::path &file);
// A folder code is loaded from, and every folder above it up to the root, in the path as given
// and as the system resolves it: each owned by root or this user (root only for root), none
// writable by group or others except a sticky folder above the plugin folder (/tmp: there no
// one can rename what they do not own), and every symbolic link on the way owned as a folder
// must be. The folder itself may not be writable by others even when sticky (anyone could add
// a library). POSIX; on Windows the folder's own access list (docs/platforms.md).
std::string untrusted_folder_reason(const std::filesystem::path &folder);

// Everything below `folder` (files, folders, links; at most max_entries of them): each file and
// folder held to the rules of untrusted_reason (a folder inside may not be writable by others
// even when sticky), each link's target to them and to its own folder's. What a kit's worker
// loads besides its program (a script's modules, a jar, an assembly) lives there: one file
// others could change is a way into the process that runs it. "" when all pass, else the first
// reason, naming the entry.
std::string untrusted_tree_reason(const std::filesystem::path &folder,
                                  std::size_t max_entries = 10000);

// Why a folder is not this user's own to write files into (ipchost new-plugin): "" when it is
// owned by this user and no one else can write in it.
std::string foreign_folder_reason(const std::filesystem::path &folder);

}  // namespace ipcbench::platform
