#include "conformance/leak_snapshot.hpp"

#include <fmt/format.h>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/named_objects.hpp"
#include "platform/process_identity.hpp"

namespace ipcbench::conformance {
namespace {

std::set<std::string> entries(const std::string &dir) {
    std::set<std::string> names;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.insert(it->path().filename().string());
    return names;
}

std::set<std::string> sysv_queue_ids() {
    std::set<std::string> ids;
    std::ifstream in("/proc/sysvipc/msg");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key, id;
        if (fields >> key >> id) ids.insert(id);
    }
    return ids;
}

// `object` occurs in an address as a whole token ("32770" in "sysv:32770", not in "sysv:327701").
bool named(const std::vector<std::string> &addresses, const std::string &object) {
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (const auto &a : addresses)
        for (auto at = a.find(object); at != std::string::npos; at = a.find(object, at + 1)) {
            const std::size_t end = at + object.size();
            if ((at == 0 || !word(a[at - 1])) && (end == a.size() || !word(a[end]))) return true;
        }
    return false;
}

}  // namespace

leak_snapshot leak_snapshot::take(const std::string &runtime_dir) {
    leak_snapshot s;
    s.descriptors = platform::open_handle_count();
    s.run_directory_entries = entries(runtime_dir).size();
    s.sysv_queues = sysv_queue_ids();
    s.posix_queues = entries("/dev/mqueue");
    s.shared_memory = entries("/dev/shm");
    return s;
}

std::string leak_snapshot::leaked_in(const leak_snapshot &after,
                                     const std::vector<std::string> &addresses) const {
    std::string out;
    auto add = [&out](const std::string &text) { out += (out.empty() ? "" : ", ") + text; };
    for (const auto &address : addresses)
        if (platform::named_object_exists(address)) {
            add("still open: " + address);
            break;
        }
    if (after.descriptors > descriptors)
        add(fmt::format("descriptors: {} -> {}", descriptors, after.descriptors));
    if (after.run_directory_entries > run_directory_entries)
        add(fmt::format("run directory entries: {} -> {}", run_directory_entries,
                        after.run_directory_entries));
    auto objects = [&](const char *what, const std::set<std::string> &was,
                       const std::set<std::string> &is) {
        std::string names;
        for (const auto &o : is)
            if (!was.count(o) && named(addresses, o)) names += (names.empty() ? "" : " ") + o;
        if (!names.empty()) add(std::string(what) + ": " + names);
    };
    objects("System V queues", sysv_queues, after.sysv_queues);
    objects("/dev/mqueue entries", posix_queues, after.posix_queues);
    objects("/dev/shm entries", shared_memory, after.shared_memory);
    return out;
}

}  // namespace ipcbench::conformance
