#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/job.hpp"
#include "platform/resource_usage.hpp"
#include "stats/latency_histogram.hpp"
#include "timed/message_reassembly.hpp"
#include "timed/payload_pattern.hpp"
#include "timed/receive_tally.hpp"
#include "timed/stream_set.hpp"
#include "timed/stream_task.hpp"
#include "timed/timing_rules.hpp"

namespace ipcbench::timed {

// What goes out in one call: one message, or on a stream transport with --batch N up to N
// messages back to back (as writev would send them), possibly in parts (a stream's try_send
// may take some of it).
struct outgoing {
    std::vector<unsigned char> bytes;
    std::size_t offset = 0;
    std::size_t length = 0;    // bytes of the messages in it
    std::uint32_t count = 0;   // messages in it
    bool busy = false;         // something is being sent
    std::uint64_t header = 0;  // the first message's
    void begin(std::uint64_t first_header, std::size_t message_bytes) {
        header = first_header;
        offset = 0;
        length = message_bytes;
        count = 1;
        busy = true;
    }
};

// One task's state machine, as the event engines drive it.
struct driven {
    stream_task *task = nullptr;
    plugin::transport_endpoint *out = nullptr, *in = nullptr;
    outgoing send;
    message_reassembly recv;   // a stream transport's bytes cut into messages
    receive_tally tally;       // receive
    std::uint64_t seq = 0;     // send: timed messages sent; ping: pings sent
    std::uint64_t warm = 0;    // warm-up messages (round trips) done
    int end_markers = 0;       // still to send
    bool window_done = false;  // send/ping: the timed part is over
    bool done = false, queued = false, waiting_timer = false;
    bool send_pending = false, recv_pending = false;  // completion: submitted, not reaped
    std::int64_t slot_offset_ns = 0;                  // paced: this stream's place in the period
    std::int64_t t0 = 0;             // ping: when the pending ping started (0: none pending)
    std::int64_t last_activity = 0;  // pong, unreliable: the last message
    std::int64_t end_ns = 0;
    bool timed = false;  // pong: the first timed message came
    std::int64_t first_ns = 0;
    std::uint64_t echoed = 0, round_trips = 0, mismatched = 0, lost = 0, stale = 0, corrupted = 0;
};

// What the event engines share: one thread's streams as state machines that ask the timed
// side's rules (timed/timing_rules.hpp, as the thread loops do) what comes next: warm-up,
// the timed window or --count, pacing with --rate (each stream's slot offset by its index), end
// markers, ping-pong with lost-ping timeouts; and results and CPU. An engine supplies how messages
// move: prepare (before the first turn), drive (one turn of a stream; true when it could go on at
// once), wait_io (waits at most timeout_ns and enqueues what became ready) and teardown.
class stream_engine {
public:
    stream_engine(std::vector<stream_task *> tasks, const model::job &j,
                  const endpoint_lookup &endpoint_for);
    virtual ~stream_engine() = default;
    stream_engine(const stream_engine &) = delete;
    stream_engine &operator=(const stream_engine &) = delete;

    void run();

protected:
    virtual void prepare(driven &d) = 0;
    virtual bool drive(driven &d) = 0;
    virtual void wait_io(std::int64_t timeout_ns) = 0;
    virtual void teardown() {}
    // The calls this part makes, as the thread engine names its paths.
    virtual std::string path_name(model::job_kind part) const = 0;

    void enqueue(driven &d);
    void start_message(driven &d, std::uint64_t header, std::int64_t scheduled = 0);
    // "NAME", or "NAME xN bytes" when a stream's call carries a batch's worth (a sender's N
    // messages back to back, a receiver's read of N messages' worth).
    std::string batch_name(const char *name) const;
    // What a sender sends next (start_message done); false when nothing now (a timer is set,
    // or it finished).
    bool next_to_send(driven &d, std::int64_t now);
    void sent_one(driven &d);
    void finish_receiver(driven &d);
    // The next ping or end marker (start_message done); false when the pinger finished.
    bool next_ping(driven &d, std::int64_t now);
    void pong_arrived(driven &d, const unsigned char *m, std::int64_t now);
    void finish_ponger(driven &d);
    // Fails the task with the plugin's last error, or with `text` (the endpoint refused the
    // engine) naming --io threads.
    void fail(driven &d, plugin::transport_endpoint &ep, int32_t status, const char *what,
              const std::string &text = {});
    void finish(driven &d, model::loop_result r);

    const model::job &j_;
    const std::size_t size_;
    const payload_pattern pattern_;
    const std::uint64_t corrupt_;  // check --impl's corrupted message (payload_pattern.hpp)
    const bool paced_;
    // Messages per send: --batch on a stream transport's throughput sender (the messages go
    // back to back in one buffer), otherwise 1.
    const std::uint32_t batch_;
    std::vector<driven> drivers_;
    stats::latency_histogram one_way_;
    std::int64_t window_start_ = 0;

private:
    void attach(driven &d, const endpoint_lookup &endpoint_for);
    void take_turns();
    void close_window(driven &d, std::int64_t now);
    void write_message(driven &d, std::uint32_t index, std::uint64_t header,
                       std::int64_t scheduled);
    void extend_batch(driven &d, std::uint32_t limit, std::int64_t now);
    void finish_sender(driven &d);
    void finish_pinger(driven &d);
    void begin_window(std::int64_t now);
    void set_timer(driven &d, std::int64_t when);
    void fire_timers(std::int64_t now);
    void housekeeping(std::int64_t now);
    void finish_usage();

    const double period_ns_;
    timing::send_schedule schedule_;  // senders'; its window is the thread's
    std::vector<driven *> ready_;
    using timer = std::pair<std::int64_t, driven *>;
    std::priority_queue<timer, std::vector<timer>, std::greater<>> timers_;
    stats::latency_histogram histogram_;
    platform::resource_usage usage_before_;
    std::int64_t warm_end_ = 0, window_end_ = 0;
    bool window_begun_ = false;
    int live_ = 0;
};

// Makes the engine for one thread's share of the streams.
using engine_factory = std::function<std::unique_ptr<stream_engine>(
    std::vector<stream_task *>, const model::job &, const endpoint_lookup &)>;

// settings.threads threads per process, each running one engine over a share of the streams
// (stream k on thread k mod T). Joins on destruction.
class engine_threads {
public:
    engine_threads(std::deque<stream_task> &tasks, const model::job &j,
                   const endpoint_lookup &endpoint_for, const engine_factory &make);
    ~engine_threads();
    engine_threads(const engine_threads &) = delete;
    engine_threads &operator=(const engine_threads &) = delete;
    void join();

private:
    std::vector<std::thread> threads_;
};

}  // namespace ipcbench::timed
