#pragma once

#include <vector>

namespace ipcbench::stats {

// How evenly a case's streams shared the throughput: what a table can still show at 10,000
// streams instead of 10,000 rows.
struct stream_spread {
    std::size_t n = 0;
    double min = 0, p50 = 0, p99 = 0, max = 0;  // per-stream figure (bytes/s), nearest rank
    // Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all streams got the same, 1/n when
    // one got everything; 1 for an empty or all-zero set (nothing was unfair).
    double jain = 1;
};

stream_spread spread_of(std::vector<double> per_stream);

// The nearest-rank percentile (0 < p <= 100) of sorted values; 0 when empty.
double nearest_rank(const std::vector<double> &sorted, double p);

}  // namespace ipcbench::stats
