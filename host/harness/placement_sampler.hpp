#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/case_result.hpp"
#include "platform/thread_placement.hpp"

namespace ipcbench::harness {

// Where the two local workers' threads run while a case goes on: sample() (called from the
// orchestrator's wait loop, at most every `period_ns`) reads the CPU, run time and migration
// count of each thread of both processes; figures() keeps the samples inside a timed window and
// the threads that ran the loops. The workers are never touched: no thread, no clock read is
// added to the timed loops. Every 20 ms: reading /proc every 10 ms cost TCP with 2 streams a
// 2 % lower median (14 alternated runs, not significant); 20 ms halves that and still gives
// 25 samples in a 0.5 s window.
class placement_sampler {
public:
    static constexpr std::int64_t period_ns = 20'000'000;

    // The two workers' process ids; 0 for one that is not on this host (then nothing is sampled).
    placement_sampler(long sender_pid, long receiver_pid);

    void sample();
    // One sample, read from begin_ns to end_ns (sample() reads them from the system; tests make
    // them up, read in an instant).
    void record(std::int64_t begin_ns, std::int64_t end_ns,
                std::vector<platform::thread_placement> sender,
                std::vector<platform::thread_placement> receiver);
    void record(std::int64_t at_ns, std::vector<platform::thread_placement> sender,
                std::vector<platform::thread_placement> receiver) {
        record(at_ns, at_ns, std::move(sender), std::move(receiver));
    }

    // The placement of the given loop threads over [first_ns, end_ns]; nullopt when fewer than
    // two samples fell inside it (a window shorter than about 2 periods) or a side is remote.
    std::optional<report::placement_figures> figures(
        std::int64_t first_ns, std::int64_t end_ns, const std::vector<std::int64_t> &sender_threads,
        const std::vector<std::int64_t> &receiver_threads) const;

private:
    struct snapshot {
        std::int64_t begin_ns = 0, end_ns = 0;  // the reads took place in between
        std::vector<platform::thread_placement> sender, receiver;
    };
    long sender_pid_, receiver_pid_;
    std::int64_t next_ns_ = 0;
    std::vector<snapshot> samples_;
};

}  // namespace ipcbench::harness
