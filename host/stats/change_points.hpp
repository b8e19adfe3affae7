#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipcbench::stats {

// Where a series of measurements (one figure of one case, night after night) shifted: the
// E-divisive means method of Matteson and James (2014), as Apache Otava (Hunter) and MongoDB's
// CI use it. A split of a segment is scored by the energy distance between its two sides
// (2 E|X-Y| - E|X-X'| - E|Y-Y'|, times m n / (m + n)); the best split counts when a permutation
// test (the segment's values shuffled, `permutations` times, seeded) finds a score as high in
// fewer than alpha of the shuffles; then both sides are searched again. It assumes nothing of
// the distribution and one odd night does not make a change point (each side needs at least
// `min_size` values).
struct change_point {
    std::size_t index = 0;  // the first value after the change
    double p_value = 1;     // of the permutation test
    double before = 0;      // the median of the segment before it ...
    double after = 0;       // ... and after it (up to the neighbouring change points)
};

struct change_point_options {
    // 1 %: a nightly report tests every case and figure, so 5 % would find a change in one
    // series of twenty with none in it.
    double alpha = 0.01;
    std::size_t permutations = 499;
    std::size_t min_size = 3;
    std::uint64_t seed = 1;
};

// Change points of `series` (use the logs of a figure, so a change is a factor), in order.
std::vector<change_point> e_divisive(const std::vector<double> &series,
                                     const change_point_options &options = {});

}  // namespace ipcbench::stats
