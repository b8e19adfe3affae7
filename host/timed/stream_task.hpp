#pragma once

#include "model/job.hpp"
#include "model/loop_result.hpp"
#include "timed/stream_progress.hpp"

namespace ipcbench::timed {

// One stream's part in a worker (send, receive, ping or pong), whichever engine runs it: its
// live progress for the control thread, and its figures once finished.
struct stream_task {
    stream_task(model::job_kind part, int stream) : part(part), stream(stream) {}
    model::job_kind part;
    int stream = 0;
    stream_progress progress;
    model::loop_result result;
};

}  // namespace ipcbench::timed
