#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ipcbench::test {

struct process_output {
    int exit_code = -1;  // -1 when killed by a signal or timed out
    int signal = 0;
    bool timed_out = false;
    std::string out;
    std::string err;
    long max_rss_kib = 0;  // the process's peak resident memory, as the kernel counted it
    // CPU seconds (user + system) of the process and of every descendant it waited for (an
    // ipchost run: itself and its workers), as the kernel accounted them.
    double cpu_s = 0;
};

// A program's argv and environment made ready before fork: tests fork from several threads, and
// a child that allocates between fork and exec may wait forever on a lock another thread held at
// the fork (ASan's allocator did). exec() only calls execve.
class prepared_exec {
public:
    prepared_exec(std::vector<std::string> argv, const std::map<std::string, std::string> &env);
    [[noreturn]] void exec() const;

private:
    std::vector<std::string> args_, env_;
    std::vector<char *> argv_, envp_;
};

// Runs a program with extra environment variables, captures stdout and stderr, and kills it if
// it runs longer than timeout_s.
process_output run_process(const std::vector<std::string> &argv,
                           const std::map<std::string, std::string> &env = {},
                           double timeout_s = 60);

// Like run_process, but sends `signal` to the process after `signal_after_s` seconds; `exit_s`
// receives how long it took to end after the signal.
process_output run_process_signalled(const std::vector<std::string> &argv, double signal_after_s,
                                     int signal, double *exit_s, double timeout_s = 60);

// True when /proc/PID/cmdline (NUL-separated) is an `ipchost worker ...` process.
bool is_worker_command(const std::string &cmdline);
// Workers (`ipchost worker`) still alive that this test binary's own runs started (they carry its
// IPCBENCH_TEST_TAG), never another ipchost's on the machine.
std::vector<int> leftover_workers();
// Processes other than this one that carry this test binary's IPCBENCH_TEST_TAG (everything its
// runs started), still alive.
std::vector<int> tagged_processes();
// The addresses of one scheme ("sysv") that ipchost -v logged for its creators: the objects this
// test's runs made, to check that none is left.
std::set<std::string> named_addresses(const std::string &verbose_log, const std::string &scheme);
// The ids of the System V message queues that exist now.
std::set<std::string> sysv_queue_ids();

// Seconds on the steady clock since `start` (a test's bound on how long something took).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The ipchost binary under test.
process_output run_ipchost(const std::vector<std::string> &args,
                           const std::map<std::string, std::string> &env = {},
                           double timeout_s = 60);

// A fresh private directory under the system temp dir, removed by the destructor.
class temp_dir {
public:
    temp_dir();
    ~temp_dir();
    const std::string &path() const { return path_; }
    // Names of the entries in it (non-recursive).
    std::vector<std::string> entries() const;

private:
    std::string path_;
};

}  // namespace ipcbench::test
