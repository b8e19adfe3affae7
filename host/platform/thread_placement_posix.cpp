#include "platform/thread_placement.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace ipcbench::platform {
namespace {

// A small /proc file into buf (NUL-terminated); false when it cannot be read (the thread ended).
bool read_small(const std::string &path, char *buf, std::size_t size) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t n = ::read(fd, buf, size - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}

// Field 39 of /proc/PID/task/TID/stat ("processor"), counted after the ')' that ends the name.
int cpu_from_stat(const char *stat) {
    const char *p = std::strrchr(stat, ')');
    if (p == nullptr) return -1;
    for (int field = 2; field < 39 && *p; ++p)
        if (*p == ' ') ++field;
    return *p ? std::atoi(p) : -1;
}

std::uint64_t migrations_from_sched(const char *sched) {
    const char *p = std::strstr(sched, "se.nr_migrations");
    if (p == nullptr) return 0;
    p = std::strchr(p, ':');
    return p ? std::strtoull(p + 1, nullptr, 10) : 0;
}

}  // namespace

std::int64_t current_thread_id() {
    return static_cast<std::int64_t>(::syscall(SYS_gettid));
}

std::vector<thread_placement> sample_threads(long pid,
                                             const std::vector<thread_placement> &previous,
                                             bool migrations, std::size_t max_threads) {
    std::vector<thread_placement> out;
    const std::string base = "/proc/" + std::to_string(pid) + "/task/";
    DIR *dir = ::opendir(base.c_str());
    if (dir == nullptr) return out;
    char buf[4096];
    while (const dirent *entry = ::readdir(dir)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        if (out.size() >= max_threads) break;
        const std::string task = base + entry->d_name;
        thread_placement t;
        t.thread_id = std::atoll(entry->d_name);
        if (!read_small(task + "/schedstat", buf, sizeof buf)) continue;  // it ended
        t.run_ns = std::strtoull(buf, nullptr, 10);
        const thread_placement *before = nullptr;
        for (const auto &p : previous)
            if (p.thread_id == t.thread_id) before = &p;
        if (before != nullptr && before->run_ns == t.run_ns) {
            t.cpu = before->cpu;  // it has not run since: still where it last ran
        } else if (read_small(task + "/stat", buf, sizeof buf)) {
            t.cpu = cpu_from_stat(buf);
        }
        if (migrations && read_small(task + "/sched", buf, sizeof buf)) {
            t.migrations = migrations_from_sched(buf);
            t.migrations_read = true;
        } else if (before != nullptr) {
            t.migrations = before->migrations;
        }
        if (t.cpu >= 0) out.push_back(t);
    }
    ::closedir(dir);
    return out;
}

}  // namespace ipcbench::platform
