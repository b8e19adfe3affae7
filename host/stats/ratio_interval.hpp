#pragma once

#include <cstddef>
#include <vector>

namespace ipcbench::stats {

// The change of one figure between a base and a new measurement, as the ratio new / base with
// its interval. Both methods work on the logarithms of the samples, so a change is a factor
// (the same at 10 MB/s and at 10 GB/s) and the interval of the ratio is the exponent of a
// distribution-free interval of a shift:
//   paired   (interleaved rounds, one base and one new sample each): the Hodges-Lehmann estimate
//            of the log ratios' centre (the median of their Walsh averages) with the Wilcoxon
//            signed-rank interval, exact (the distribution of the signed-rank sum counted out);
//   unpaired (two files from two runs): the Hodges-Lehmann shift of the two samples' logs (the
//            median of all differences new - base) with the Mann-Whitney interval, exact up to
//            50 x 50 samples, the normal approximation beyond.
// No interval exists when the samples are too few for the confidence asked (95 %: 6 pairs,
// or 4 and 4 samples); `interval` is false then and low/high are the ratio itself.
struct ratio_estimate {
    std::size_t n = 0;  // pairs, or the smaller sample
    double ratio = 1;   // new / base
    bool interval = false;
    double low = 1, high = 1;  // the interval of the ratio
    // The round-to-round scatter of the log ratios (paired: 1.4826 x their median absolute
    // deviation, a standard deviation robust to one odd round); for unpaired samples the two
    // samples' scatter combined. exp(1.96 * noise) - 1 is the noise of one pair as a share.
    double noise = 0;
};

ratio_estimate paired_ratio(const std::vector<double> &base, const std::vector<double> &next,
                            double confidence = 0.95);
ratio_estimate unpaired_ratio(const std::vector<double> &base, const std::vector<double> &next,
                              double confidence = 0.95);

// One-sided tests that the true ratio new / base lies below `bound` (a ratio), by the same
// ranks as the intervals above: small when the data say so. The p-value doubled is at most
// 1 - confidence exactly when that interval lies wholly below `bound`. For "above", pass the
// samples the other way round and 1 / bound.
double paired_p_below(const std::vector<double> &base, const std::vector<double> &next,
                      double bound);
double unpaired_p_below(const std::vector<double> &base, const std::vector<double> &next,
                        double bound);

// Holm's step-down adjustment: each p-value raised so that rejecting those below alpha holds
// the family-wise error across all of them at alpha. Same order as given.
std::vector<double> holm_adjust(const std::vector<double> &p);

// The least pairs for which a one-sided signed-rank test can reach `alpha` at all (2^-n <= alpha).
std::size_t least_pairs_for(double alpha);

// The exact distribution of the Wilcoxon signed-rank sum W+ of n pairs: P(W+ <= w), w = 0..max.
std::vector<double> signed_rank_cdf(std::size_t n);
// The exact distribution of the Mann-Whitney U of samples of m and n: P(U <= u), u = 0..m*n.
std::vector<double> rank_sum_cdf(std::size_t m, std::size_t n);

}  // namespace ipcbench::stats
