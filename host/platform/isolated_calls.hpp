#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ipcbench::platform {

// What one isolated item produced: the text work(i) returned, or why it did not return.
struct isolated_result {
    std::string failure;  // "" when work(i) returned; else "signal 11 (SIGSEGV)", "hung for..."
    std::string output;   // what work(i) returned
};

// Runs work(0) ... work(count - 1) in forked child processes, so code which may crash, hang or
// misbehave (a plugin's constructors, entry point or remove_address) cannot take this process
// down. Up to `parallel` children run at once, each on its own share of the items. A child runs
// in a session of its own (a plugin signalling its process group hits only the child), with
// stdin, stdout and stderr on /dev/null (nothing a plugin prints reaches ipchost's output), and
// dies with this process. When a child dies or one item takes longer than timeout_ms, that item
// is marked and a new child carries on with the next of its share. work must not touch this
// process's threads' state (locks held elsewhere): it runs after fork().
// POSIX only (Windows has no fork: see run_isolated_task).
std::vector<isolated_result> run_isolated(std::size_t count,
                                          const std::function<std::string(std::size_t)> &work,
                                          int timeout_ms, int parallel = 1);

// Work that runs isolated on both systems: a function of one text argument, registered under a
// name by a static object in its own file, so a re-run of this executable can find it:
//   const platform::isolated_task probe_task{"probe-plugin", probe_one_file};
using isolated_work = std::string (*)(const std::string &argument);
struct isolated_task {
    isolated_task(const char *name, isolated_work work);
};
isolated_work find_isolated_task(const std::string &name);  // nullptr when unknown

// Runs task(arguments[i]) for each i with the guarantees of run_isolated: a crash, a hang past
// timeout_ms or a stray exit marks that item only. POSIX: forked children (run_isolated).
// Windows: one re-run of this executable per item (`ipchost isolated TASK --answer-handle H`),
// the argument on its stdin, the answer on an inherited pipe, stdout and stderr on NUL, in a Job
// object of its own that the deadline (or ipchost's end) terminates. Up to `parallel` at once.
std::vector<isolated_result> run_isolated_task(const char *task,
                                               const std::vector<std::string> &arguments,
                                               int timeout_ms, int parallel = 1);

// The re-run's side (Windows; POSIX never starts one): `ipchost isolated TASK --answer-handle H`.
// Returns the exit code.
int serve_isolated_task(int argc, char **argv);

}  // namespace ipcbench::platform
