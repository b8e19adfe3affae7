#pragma once

#include <cstdint>

#include "model/case_settings.hpp"
#include "plugin/transport_info.hpp"

namespace ipcbench::harness {

// Streams the thread engine takes: a thread per stream (two for bidir) in each process.
inline constexpr int max_thread_streams = 1024;

// The case as the workers run it: --io auto resolved to the best engine the transport offers on
// this system, and --threads 0 to the CPUs available. auto keeps a thread per stream while the
// streams fit the threads (a blocking call is the cheapest wait there is), and multiplexes them
// otherwise: epoll for readiness, io_uring (Linux) or IOCP (Windows) for completion.
// Throws std::runtime_error naming the problem and the fix when the engine asked for cannot run
// this transport, or when the streams cannot get a thread each.
model::case_settings with_io_engine(const plugin::transport_info &transport,
                                    model::case_settings c);

// The descriptors one worker process needs for a case (its endpoints and their spares).
std::uint64_t descriptors_needed(const plugin::transport_info &transport,
                                 const model::case_settings &c);

}  // namespace ipcbench::harness
