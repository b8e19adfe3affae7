#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace ipcbench::conformance {

// What a check may leave behind, before and after it: this process's descriptors and the run
// directory's entries (both private: counted), and the System V queues, POSIX queues and
// /dev/shm objects of the whole machine (shared with every other process: listed by id/name).
struct leak_snapshot {
    std::size_t descriptors = 0, run_directory_entries = 0;
    std::set<std::string> sysv_queues, posix_queues, shared_memory;

    static leak_snapshot take(const std::string &runtime_dir);

    // What `after` holds more of, as "System V queues: sysv:32770, ...". A queue or shared-memory
    // object counts only when one of `addresses` (those the checked endpoints exported) names it:
    // a benchmark running beside the check must not make a sound plugin fail. An object that no
    // address names goes unnoticed; descriptors and run-directory entries never do.
    std::string leaked_in(const leak_snapshot &after,
                          const std::vector<std::string> &addresses) const;
};

}  // namespace ipcbench::conformance
