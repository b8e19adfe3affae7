#include "stats/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>

namespace ipcbench::stats {
namespace {

struct best_split {
    std::size_t at = 0;  // the split's first index of the second side (0: none)
    double score = -1;
};

// The best split of values[0..n) by energy distance, O(n^2): within-side distance sums grow by
// one row as the split moves right; the cross sum is what the total leaves.
best_split best_split_of(const std::vector<double> &values, std::size_t min_size) {
    const std::size_t n = values.size();
    best_split best;
    if (n < 2 * min_size) return best;
    // row[i]: sum of |v_i - v_j| over j < i; col[i]: over j > i.
    std::vector<double> row(n, 0), col(n, 0);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j) {
            const double d = std::fabs(values[i] - values[j]);
            row[i] += d;
            col[j] += d;
            total += d;
        }
    double left = 0;                      // pairs within [0, t)
    std::vector<double> right(n + 1, 0);  // pairs within [t, n)
    for (std::size_t t = n; t-- > 0;) right[t] = right[t + 1] + col[t];
    for (std::size_t t = 1; t < n; ++t) {
        left += row[t - 1];
        if (t < min_size || n - t < min_size) continue;
        const double m = static_cast<double>(t), k = static_cast<double>(n - t);
        const double cross = total - left - right[t];
        const double energy = 2 * cross / (m * k) - (m > 1 ? 2 * left / (m * (m - 1)) : 0) -
                              (k > 1 ? 2 * right[t] / (k * (k - 1)) : 0);
        const double score = m * k / (m + k) * energy;
        if (score > best.score) best = {t, score};
    }
    return best;
}

double segment_median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.empty() ? 0 : v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Splits [first, last) if its best split passes the permutation test, then each side.
void divide(const std::vector<double> &series, std::size_t first, std::size_t last,
            const change_point_options &o, std::mt19937_64 &random,
            std::vector<change_point> &out) {
    std::vector<double> segment(series.begin() + static_cast<std::ptrdiff_t>(first),
                                series.begin() + static_cast<std::ptrdiff_t>(last));
    const best_split found = best_split_of(segment, o.min_size);
    if (found.at == 0 || found.score <= 0) return;
    std::size_t as_high = 0;
    std::vector<double> shuffled = segment;
    for (std::size_t k = 0; k < o.permutations; ++k) {
        std::shuffle(shuffled.begin(), shuffled.end(), random);
        if (best_split_of(shuffled, o.min_size).score >= found.score) ++as_high;
    }
    const double p = static_cast<double>(as_high + 1) / static_cast<double>(o.permutations + 1);
    if (p >= o.alpha) return;
    out.push_back({first + found.at, p, 0, 0});
    divide(series, first, first + found.at, o, random, out);
    divide(series, first + found.at, last, o, random, out);
}

}  // namespace

std::vector<change_point> e_divisive(const std::vector<double> &series,
                                     const change_point_options &options) {
    std::vector<change_point> out;
    std::mt19937_64 random(options.seed);
    divide(series, 0, series.size(), options, random, out);
    std::sort(out.begin(), out.end(), [](auto &a, auto &b) { return a.index < b.index; });
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t from = k ? out[k - 1].index : 0;
        const std::size_t to = k + 1 < out.size() ? out[k + 1].index : series.size();
        const auto at = [&](std::size_t i) {
            return series.begin() + static_cast<std::ptrdiff_t>(i);
        };
        out[k].before = segment_median({at(from), at(out[k].index)});
        out[k].after = segment_median({at(out[k].index), at(to)});
    }
    return out;
}

}  // namespace ipcbench::stats
