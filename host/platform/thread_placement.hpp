#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipcbench::platform {

// The calling thread's id (Linux: its tid), as sample_threads names it.
std::int64_t current_thread_id();

// Where one thread of a process is: the CPU it runs on or last ran on, the CPU time it has run
// so far and how often the scheduler has moved it between CPUs.
struct thread_placement {
    std::int64_t thread_id = 0;
    int cpu = -1;
    std::uint64_t run_ns = 0;      // CPU time so far (schedstat); 0 where unreadable
    std::uint64_t migrations = 0;  // moves between CPUs so far (sched); 0 where unreadable
    bool migrations_read = false;  // read in this sample (else carried over or unknown)
};

// The threads of process `pid`, up to max_threads of them (Linux: /proc/PID/task); empty when
// the process is gone. Cheap enough to call every few milliseconds: a thread that has not run
// since `previous` (the last sample of the same process) costs one small read (its run time)
// and keeps its CPU; one that ran, two. With `migrations`, each thread's migration count is
// read too (a third, larger read); otherwise it is carried over from `previous`.
std::vector<thread_placement> sample_threads(long pid,
                                             const std::vector<thread_placement> &previous,
                                             bool migrations, std::size_t max_threads = 256);

}  // namespace ipcbench::platform
