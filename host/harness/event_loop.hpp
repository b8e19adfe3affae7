#pragma once

#include <deque>
#include <thread>
#include <vector>

#include "harness/stream_set.hpp"
#include "harness/stream_task.hpp"
#include "model/job.hpp"

namespace ipcbench::harness {

// The readiness engine (--io epoll): settings.threads threads per process, each multiplexing a
// share of the streams (stream k on thread k mod T) through the transport's ABI 1.2 calls
// (event_source, try_send, try_recv) and one platform::readiness_poller. Each stream is a small
// state machine with the semantics of the thread engine's loops (harness/timed_loops.hpp):
// warm-up, the timed window or --count, pacing with --rate, end markers, reassembly, checks.
// Fills each task's result and progress as run_task does; the caller serves the control
// channel meanwhile.
class event_loops {
public:
    event_loops(std::deque<stream_task> &tasks, const model::job &j,
                const endpoint_lookup &endpoint_for);
    ~event_loops();
    event_loops(const event_loops &) = delete;
    event_loops &operator=(const event_loops &) = delete;
    void join();

private:
    std::vector<std::thread> threads_;
};

}  // namespace ipcbench::harness
