#pragma once

#include <vector>

namespace ipcbench::stats {

// Median, mean, extremes and spread of repeated measurements of one figure.
struct summary {
    std::size_t n = 0;
    double median = 0, mean = 0, min = 0, max = 0;
    double stddev = 0;  // sample standard deviation (n - 1); 0 for n < 2
    double cv = 0;      // stddev / mean; 0 when the mean is 0
    // The median's 95 % interval, distribution-free (by ranks: [x(k), x(n+1-k)] with k the
    // largest rank that a Binomial(n, 1/2) stays below with probability 2.5 % at most); from 6
    // samples on. With fewer no such interval exists, and these are min and max.
    double median_low = 0, median_high = 0;
};

// The least number of samples with a 95 % interval of the median (summary::median_low).
constexpr std::size_t samples_for_median_interval = 6;

summary summarize(std::vector<double> samples);

// Two-sided Mann-Whitney U test: the probability of a difference at least this large in rank
// sums if both samples came from one distribution. Exact (by counting rank arrangements) when
// both samples have at most 20 values and there are no ties; otherwise the normal approximation
// with tie and continuity correction, as scipy.stats.mannwhitneyu and Google Benchmark's compare
// tool do. Returns 1 when either sample is empty.
double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b);

}  // namespace ipcbench::stats
