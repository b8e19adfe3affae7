#include "platform/file_trust.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ipcbench::platform {
namespace {

std::string mode_text(mode_t mode) {
    return fmt::format("mode {:04o}", mode & 07777);
}

std::string owner_problem(const struct stat &st) {
    const uid_t me = geteuid();
    if (me == 0 && st.st_uid != 0)
        return fmt::format("owned by uid {} while ipchost runs as root", st.st_uid);
    if (me != 0 && st.st_uid != 0 && st.st_uid != me)
        return fmt::format("owned by uid {}, neither root nor this user (uid {})", st.st_uid, me);
    return "";
}

std::string write_problem(const struct stat &st) {
    if (st.st_mode & S_IWOTH) return "writable by every user (" + mode_text(st.st_mode) + ")";
    if (st.st_mode & S_IWGRP)
        return fmt::format("writable by its group, gid {} ({})", st.st_gid, mode_text(st.st_mode));
    return "";
}

// One component on the way to a plugin folder: a folder (or the link naming it).
std::string ancestor_problem(const std::filesystem::path &p) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0)
        return fmt::format("{} cannot be inspected ({})", p.string(), std::strerror(errno));
    if (std::string why = owner_problem(st); !why.empty()) return p.string() + " is " + why;
    if (S_ISLNK(st.st_mode)) return "";  // its target is walked too, as resolved
    if (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) return "";  // sticky: /tmp
    if (std::string why = write_problem(st); !why.empty())
        return p.string() + " is " + why + ": whoever can write it can swap the folders below";
    return "";
}

// Every component above `folder`, and `folder` itself when it is a link (the folder it names
// has the stricter rule of untrusted_folder_reason).
std::string walk_up(const std::filesystem::path &folder) {
    std::filesystem::path prefix;
    for (const auto &part : folder) {
        prefix /= part;
        if (prefix == folder) {
            struct stat st {};
            if (lstat(prefix.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
                if (std::string why = owner_problem(st); !why.empty())
                    return prefix.string() + " (a link) is " + why;
            break;
        }
        if (std::string why = ancestor_problem(prefix); !why.empty()) return why;
    }
    return "";
}

}  // namespace

std::string untrusted_reason(const std::filesystem::path &file) {
    struct stat st {
    }, link{};
    if (stat(file.c_str(), &st) != 0) return "";  // reading it will say what is wrong
    if (std::string why = write_problem(st); !why.empty()) return why;
    if (std::string why = owner_problem(st); !why.empty()) return why;
    // A link to a library elsewhere: where it lives must be trusted as a plugin folder is.
    if (lstat(file.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        std::error_code ec;
        const auto real = std::filesystem::canonical(file, ec);
        if (!ec)
            if (std::string why = untrusted_folder_reason(real.parent_path()); !why.empty())
                return "a link to " + real.string() + ", whose folder is " + why;
    }
    return "";
}

std::string untrusted_folder_reason(const std::filesystem::path &folder) {
    std::error_code ec;
    const auto given = std::filesystem::absolute(folder, ec);
    const auto real = std::filesystem::canonical(folder, ec);
    if (ec) return "";  // a folder that is not there is reported when it is read
    for (const auto &path : {given, real})
        if (std::string why = walk_up(path); !why.empty())
            return "below a folder others could change: " + why;
    struct stat st {};
    if (stat(real.c_str(), &st) != 0) return "";
    // A sticky world-writable folder (/tmp) still lets anyone add files: refused as well.
    if (std::string why = write_problem(st); !why.empty()) return why;
    return owner_problem(st);
}

namespace {

// One entry inside a checked tree, by lstat: a link is judged by its target, and a folder may
// not be writable by others even when sticky (anyone could add a module there).
std::string tree_entry_reason(const std::filesystem::path &p, bool &is_folder) {
    struct stat st {};
    is_folder = false;
    if (lstat(p.c_str(), &st) != 0)
        return fmt::format("cannot be inspected ({})", std::strerror(errno));
    if (S_ISLNK(st.st_mode)) {
        if (std::string why = owner_problem(st); !why.empty()) return "a link " + why;
        std::error_code ec;
        const auto real = std::filesystem::canonical(p, ec);
        if (ec) return "";  // a dangling link loads nothing
        if (std::filesystem::is_directory(real, ec))
            if (std::string why = untrusted_folder_reason(real); !why.empty())
                return "a link to " + real.string() + ", which is " + why;
        return untrusted_reason(p);
    }
    if (std::string why = owner_problem(st); !why.empty()) return why;
    if (std::string why = write_problem(st); !why.empty()) return why;
    is_folder = S_ISDIR(st.st_mode);
    return "";
}

}  // namespace

std::string untrusted_tree_reason(const std::filesystem::path &folder, std::size_t max_entries) {
    std::vector<std::filesystem::path> folders{folder};
    std::size_t seen = 0;
    while (!folders.empty()) {
        const std::filesystem::path current = std::move(folders.back());
        folders.pop_back();
        std::error_code ec;
        for (std::filesystem::directory_iterator it(current, ec), end; !ec && it != end;
             it.increment(ec)) {
            if (++seen > max_entries)
                return fmt::format("{} holds more than {} files: too many to check",
                                   folder.string(), max_entries);
            bool is_folder = false;
            if (std::string why = tree_entry_reason(it->path(), is_folder); !why.empty())
                return it->path().string() + " is " + why;
            if (is_folder) folders.push_back(it->path());
        }
        if (ec) return fmt::format("{} cannot be read ({})", current.string(), ec.message());
    }
    return "";
}

std::string foreign_folder_reason(const std::filesystem::path &folder) {
    struct stat st {};
    if (lstat(folder.c_str(), &st) != 0) return "";
    if (S_ISLNK(st.st_mode)) return "a symbolic link";
    if (st.st_uid != geteuid())
        return fmt::format("owned by uid {}, not by this user (uid {})", st.st_uid, geteuid());
    return write_problem(st);
}

}  // namespace ipcbench::platform
