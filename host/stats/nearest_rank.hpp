#pragma once

#include <cmath>
#include <cstdint>

namespace ipcbench::stats {

// The nearest-rank rule behind every percentile of ipchost (latency histograms, the spread of
// streams): the p-th percentile (0 < p <= 100) of n sorted values is the value at rank
// ceil(p/100 * n), 1-based, at least 1. p/100 * n is computed in binary floating point, where
// 99.9 % of 100,000 comes out as 99,900.000000000006: a relative nudge of 1e-12 keeps an exact
// rank exact instead of moving it one value up.
inline std::uint64_t nearest_rank(double p, std::uint64_t n) {
    const double exact = p / 100.0 * static_cast<double>(n);
    const double rank = std::ceil(exact - exact * 1e-12);
    if (rank < 1) return n ? 1 : 0;
    return rank > static_cast<double>(n) ? n : static_cast<std::uint64_t>(rank);
}

}  // namespace ipcbench::stats
