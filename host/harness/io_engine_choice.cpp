#include "harness/io_engine_choice.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "platform/cpu_affinity.hpp"
#include "platform/readiness_poller.hpp"

namespace ipcbench::harness {
namespace {

using model::io_engine;

bool has_completion_engine(io_engine e) {
#ifdef _WIN32
    return e == io_engine::iocp;
#else
    return e == io_engine::uring;
#endif
}

io_engine native_completion() {
#ifdef _WIN32
    return io_engine::iocp;
#else
    return io_engine::uring;
#endif
}

void require(const plugin::transport_info &t, io_engine e) {
    const std::string name = model::to_string(e);
    if (e == io_engine::epoll) {
        if (!platform::has_readiness_poller())
            throw std::runtime_error("--io epoll is Linux's engine; on this system use --io " +
                                     std::string(model::to_string(native_completion())) +
                                     " or threads");
        if (!t.calls.readiness)
            throw std::runtime_error(
                t.id +
                " offers no readiness calls (ABI 1.2 event_source, try_send, try_recv), "
                "so --io epoll cannot drive it; ipchost --describe " +
                t.id + " shows what it offers (use --io threads or auto)");
    } else if (e == io_engine::uring || e == io_engine::iocp) {
        if (!has_completion_engine(e))
            throw std::runtime_error("--io " + name +
                                     " is not this system's completion engine; "
                                     "use --io " +
                                     model::to_string(native_completion()));
        if (!t.calls.completion)
            throw std::runtime_error(
                t.id + " offers no completion calls (ABI 1.2 cq_open, submit_send, ...), so --io " +
                name + " cannot drive it; ipchost --describe " + t.id +
                " shows what it offers (use --io threads or auto)");
    }
}

int endpoints_per_stream(const plugin::transport_info &t, const model::case_settings &c) {
    const bool duplex = t.has(IPCB_CAP_DUPLEX);
    if (c.mode == model::measure_mode::latency) return duplex ? 1 : 2;
    return c.direction == model::traffic_direction::bidir ? 2 : 1;
}

}  // namespace

model::case_settings with_io_engine(const plugin::transport_info &transport,
                                    model::case_settings c) {
    // The CPUs each process may use: one when --affinity pins it.
    if (c.threads == 0)
        c.threads = c.affinity.pinned() ? 1 : std::max(1, platform::usable_cpu_count());
    const int loops = c.streams * (c.direction == model::traffic_direction::bidir &&
                                           c.mode == model::measure_mode::throughput
                                       ? 2
                                       : 1);
    // An event engine batches by sending N messages back to back in one call, which only a
    // byte stream can take; a message transport's batch (sendmmsg) needs the thread engine.
    const bool batch_needs_threads = c.batch > 1 && !transport.has(IPCB_CAP_STREAM);
    if (c.io == io_engine::automatic) {
        const bool fits =
            loops <= c.threads || (batch_needs_threads && c.streams <= max_thread_streams);
        if (!fits && transport.calls.readiness && platform::has_readiness_poller())
            c.io = io_engine::epoll;
        else if (!fits && transport.calls.completion)
            c.io = native_completion();
        else
            c.io = io_engine::threads;  // a thread each, or nothing better offered
    }
    require(transport, c.io);
    if (c.io != io_engine::threads && batch_needs_threads)
        throw std::runtime_error("--batch " + std::to_string(c.batch) + " with --io " +
                                 model::to_string(c.io) + " needs a byte-stream transport (its " +
                                 "sends carry the batch's messages back to back); " + transport.id +
                                 " keeps message boundaries: use --io threads (send_batch) or "
                                 "leave out --batch");
    if (c.io != io_engine::threads) c.threads = std::min(c.threads, loops);  // as many as run
    if (c.io == io_engine::threads && c.streams > max_thread_streams)
        throw std::runtime_error(
            "--streams " + std::to_string(c.streams) + " with --io threads needs a thread per " +
            "stream, and the thread engine stops at " + std::to_string(max_thread_streams) +
            (transport.calls.readiness || transport.calls.completion
                 ? ": use --io auto to multiplex them"
                 : ": " + transport.id + " offers no event-driven calls (ABI 1.2), so use " +
                       std::to_string(max_thread_streams) + " streams or fewer"));
    return c;
}

std::uint64_t descriptors_needed(const plugin::transport_info &transport,
                                 const model::case_settings &c) {
    // An endpoint holds one or two descriptors (a pipe's spare end until the peer attaches, a
    // listening socket until accept); ipchost itself, its logs and plugins need a few hundred.
    return static_cast<std::uint64_t>(c.streams) * endpoints_per_stream(transport, c) + 512;
}

}  // namespace ipcbench::harness
