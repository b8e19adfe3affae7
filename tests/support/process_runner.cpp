#include "support/process_runner.hpp"

#include <iterator>

#include <sstream>

#include <set>

#include <regex>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ipcbench::test {

namespace {

// This process's environment with `overrides` set (added or replaced).
std::vector<std::string> child_environment(const std::map<std::string, std::string> &overrides) {
    std::vector<std::string> out;
    for (char **e = environ; e && *e; ++e) {
        const std::string entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string::npos && overrides.count(entry.substr(0, eq))) continue;
        out.push_back(entry);
    }
    for (const auto &[k, v] : overrides) out.push_back(k + "=" + v);
    return out;
}

}  // namespace

prepared_exec::prepared_exec(std::vector<std::string> argv,
                             const std::map<std::string, std::string> &env)
    : args_(std::move(argv)), env_(child_environment(env)) {
    for (auto &a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    for (auto &e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
}

void prepared_exec::exec() const {
    execve(argv_[0], argv_.data(), envp_.data());
    _exit(127);
}

namespace {

process_output run(const std::vector<std::string> &argv,
                   const std::map<std::string, std::string> &env, double timeout_s,
                   double signal_after_s, int signal_number, double *exit_s) {
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe2");
    const prepared_exec program(argv, env);
    pid_t pid = fork();
    if (pid == 0) {
        // A group of its own: whatever it (or a plugin in it) signals with kill(0, ...) stays
        // inside, so a regression fails this test instead of killing the test runner.
        setpgid(0, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        program.exec();
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    process_output result;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
    bool out_open = true, err_open = true, signalled = false;
    const auto start = std::chrono::steady_clock::now();
    auto signalled_at = start;
    while (out_open || err_open) {
        if (signal_number && !signalled &&
            std::chrono::steady_clock::now() - start >=
                std::chrono::milliseconds(static_cast<long>(signal_after_s * 1000))) {
            kill(pid, signal_number);
            signalled = true;
            signalled_at = std::chrono::steady_clock::now();
        }
        pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0},
                         {err_open ? err_pipe[0] : -1, POLLIN, 0}};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0) {
            result.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 2, static_cast<int>(std::min<long>(left, 20))) <= 0) continue;
        char buf[65536];
        for (int i = 0; i < 2; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
            } else {
                (i == 0 ? out_open : err_open) = false;
            }
        }
    }
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    result.max_rss_kib = usage.ru_maxrss;
    result.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                   static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (exit_s)
        *exit_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled_at).count();
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    return result;
}

}  // namespace

process_output run_process(const std::vector<std::string> &argv,
                           const std::map<std::string, std::string> &env, double timeout_s) {
    return run(argv, env, timeout_s, 0, 0, nullptr);
}

process_output run_process_signalled(const std::vector<std::string> &argv, double signal_after_s,
                                     int signal_number, double *exit_s, double timeout_s) {
    return run(argv, {}, timeout_s, signal_after_s, signal_number, exit_s);
}

namespace {

// Every process this test binary starts inherits the tag, so checks for leftovers see only
// this test's own processes, never another ipchost running beside it.
const std::string &test_tag() {
    static const std::string tag = [] {
        std::string t = "ipcbench-tests-" + std::to_string(getpid());
        setenv("IPCBENCH_TEST_TAG", t.c_str(), 1);
        // Fixture plugins change behaviour with the environment, not the file: no cached
        // verdicts, except where a test turns the cache on to test it.
        setenv("IPCBENCH_PROBE_CACHE", "0", 0);
        return t;
    }();
    return tag;
}
const bool tag_set_at_start = !test_tag().empty();

// "" when unreadable: a process exiting while its /proc file is read makes std::filebuf throw.
std::string read_all(const std::filesystem::path &file) {
    try {
        std::ifstream in(file);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    } catch (const std::exception &) {
        return "";
    }
}

}  // namespace

bool is_worker_command(const std::string &cmdline) {
    // argv[0] is the ipchost binary (any path), argv[1] the hidden subcommand: the spelling
    // child_process uses to start one (platform/child_process_*.cpp), whatever options follow.
    const auto first_end = cmdline.find('\0');
    if (first_end == std::string::npos) return false;
    const std::string program = cmdline.substr(0, first_end);
    const auto second_end = cmdline.find('\0', first_end + 1);
    const std::string sub =
        cmdline.substr(first_end + 1, second_end == std::string::npos ? std::string::npos
                                                                      : second_end - first_end - 1);
    const auto slash = program.rfind('/');
    const std::string name = slash == std::string::npos ? program : program.substr(slash + 1);
    return name == "ipchost" && sub == "worker";
}

std::vector<int> leftover_workers() {
    (void)tag_set_at_start;
    const std::string marker = "IPCBENCH_TEST_TAG=" + test_tag() + std::string(1, '\0');
    std::vector<int> pids;
    for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        if (!is_worker_command(read_all(entry.path() / "cmdline"))) continue;
        if (read_all(entry.path() / "environ").find(marker) != std::string::npos)
            pids.push_back(std::stoi(name));
    }
    return pids;
}

std::vector<int> tagged_processes() {
    const std::string marker = "IPCBENCH_TEST_TAG=" + test_tag() + std::string(1, '\0');
    const std::string self = std::to_string(getpid());
    std::vector<int> pids;
    for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos || name == self) continue;
        const std::string line = read_all(entry.path() / "stat");
        const auto close = line.rfind(')');
        if (close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z')
            continue;  // a zombie is already dead
        if (read_all(entry.path() / "environ").find(marker) != std::string::npos)
            pids.push_back(std::stoi(name));
    }
    return pids;
}

std::set<std::string> named_addresses(const std::string &verbose_log, const std::string &scheme) {
    std::set<std::string> out;
    const std::regex pattern(scheme + ":[0-9A-Za-z_./-]+");
    for (std::sregex_iterator it(verbose_log.begin(), verbose_log.end(), pattern), end; it != end;
         ++it)
        out.insert(it->str());
    return out;
}

std::set<std::string> sysv_queue_ids() {
    std::set<std::string> ids;
    std::ifstream in("/proc/sysvipc/msg");
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key, id;
        if (fields >> key >> id) ids.insert(id);
    }
    return ids;
}

process_output run_ipchost(const std::vector<std::string> &args,
                           const std::map<std::string, std::string> &env, double timeout_s) {
    std::vector<std::string> argv{IPCHOST_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, env, timeout_s);
}

temp_dir::temp_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ipcbench-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = pattern;
}

temp_dir::~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> temp_dir::entries() const {
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(path_))
        names.push_back(e.path().filename().string());
    return names;
}

}  // namespace ipcbench::test
