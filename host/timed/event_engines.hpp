#pragma once

#include <memory>
#include <vector>

#include "timed/stream_engine.hpp"

namespace ipcbench::timed {

// The readiness engine (--io epoll, Linux): one epoll set per engine thread over its streams'
// handles (ABI 1.2 event_source), messages moved with try_send and try_recv.
std::unique_ptr<stream_engine> make_readiness_engine(std::vector<stream_task *> tasks,
                                                     const model::job &j,
                                                     const endpoint_lookup &endpoint_for);

// The completion engine (--io uring on Linux, iocp on Windows): one completion queue per engine
// thread (ABI 1.2 cq_open), a send and a receive submitted per stream at a time.
std::unique_ptr<stream_engine> make_completion_engine(std::vector<stream_task *> tasks,
                                                      const model::job &j,
                                                      const endpoint_lookup &endpoint_for);

}  // namespace ipcbench::timed
