#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stats/ratio_interval.hpp"

namespace ipcbench::report {

// How a change of a figure between base and new is judged, for `ipchost ab` (interleaved rounds,
// paired) and `ipchost compare` (two files, unpaired). Every rule is here, once:
//   - the ratio new / base gets a 95 % interval (stats/ratio_interval.hpp);
//   - slower: the interval lies wholly past the threshold on the bad side (below 1 - T for
//     MB/s and msg/s, above 1 + T for a latency or a CPU cost), for gated figures after Holm's
//     adjustment across every gated figure of every case, so the family-wise error of a gate
//     is at most alpha; faster: the same on the good side; equivalent: the interval lies
//     wholly inside 1 +/- T; anything else is inconclusive;
//   - the gate judges MB/s and msg/s of throughput cases and p50 and p99 of latency cases;
//     CPU only when asked, and then as CPU time per message (CPU % rises with throughput); a
//     case's MB/s and msg/s are one hypothesis (msg/s is MB/s over one size: the same ratio);
//   - the gate fails when a gated figure is slower, passes when every gated figure is faster
//     or equivalent, and is otherwise inconclusive (its own exit code), saying for each
//     undecided figure how many more rounds would decide it at the noise measured.
enum class verdict { faster, slower, equivalent, inconclusive };

struct gate_settings {
    double threshold = 0.05;        // T, a share: 0.05 is +/-5 %
    double alpha = 0.05;            // the family-wise error of the gate; 95 % intervals
    bool gate_cpu = false;          // also gate sender and receiver CPU time per message
    bool paired = true;             // ab's rounds; false: two files (unpaired samples)
    std::size_t most_rounds = 200;  // what "cannot detect" is measured against
};

inline constexpr int exit_gate_failed = 1;
inline constexpr int exit_inconclusive = 3;

bool gated_figure(const std::string &figure, bool gate_cpu);
// "faster"/"slower"/"equivalent"/"inconclusive"; for a CPU figure "cheaper"/"costlier".
std::string verdict_name(verdict v, const std::string &figure);

// One figure of one case: its samples in, its judgement out (judge_changes).
struct figure_change {
    std::string case_key, figure;
    std::vector<double> base, next;  // paired: base[i] and next[i] are round i's
    bool gated = false;
    stats::ratio_estimate estimate;
    double p_worse = 1;           // two-sided-level p that the change is past T on the bad side
    double p_worse_adjusted = 1;  // Holm across the gated figures (= p_worse when not gated)
    verdict result = verdict::inconclusive;
    std::size_t more_rounds = 0;  // inconclusive: rounds (or repetitions) that would decide it
    std::string note;             // inconclusive: why, in words
};

void judge_changes(std::vector<figure_change> &changes, const gate_settings &s);

struct gate_outcome {
    int exit_code = 0;  // 0 pass, exit_gate_failed, exit_inconclusive
    std::size_t gated = 0, slower = 0, undecided = 0;
    std::string summary;  // one line: what the gate found and why
};

// `least` is the samples a figure needs before any verdict (least_samples); fewer and the gate
// says so instead of passing.
gate_outcome gate(const std::vector<figure_change> &changes, const gate_settings &s);

// The least rounds (paired) or repetitions per file (unpaired) with which a gated figure can
// be judged at all, with `gated_count` figures sharing the family-wise error.
std::size_t least_samples(const gate_settings &s, std::size_t gated_count);

// exp(1.96 noise) - 1: one round's scatter as a share, the "noise +/-M %" of a figure.
double noise_share(double noise);

}  // namespace ipcbench::report
