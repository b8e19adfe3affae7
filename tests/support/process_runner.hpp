#pragma once

#include <map>
#include <string>
#include <vector>

namespace ipcbench::test {

struct process_output {
    int exit_code = -1;  // -1 when killed by a signal or timed out
    int signal = 0;
    bool timed_out = false;
    std::string out;
    std::string err;
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

// Processes still alive that run `ipchost peer` (leftover workers).
std::vector<int> leftover_workers();
// System V message queues in the system.
std::size_t sysv_queue_count();

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
