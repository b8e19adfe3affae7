#include "stats/summary_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ipcbench::stats {

namespace {

// The largest rank k with P(Binomial(n, 1/2) < k) <= 2.5 %, 0 when there is none (n < 6).
std::size_t median_interval_rank(std::size_t n) {
    if (n < samples_for_median_interval) return 0;
    double below = 0;                                     // P(X < k)
    double term = std::pow(0.5, static_cast<double>(n));  // P(X = 0)
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (below + term > 0.025) break;
        below += term;
        k = i + 1;
        term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
    return k;
}

}  // namespace

summary summarize(std::vector<double> samples) {
    summary s;
    s.n = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    const std::size_t mid = s.n / 2;
    s.median = s.n % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
    if (s.n > 1) {
        double squares = 0;
        for (double x : samples) squares += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
    }
    s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
    const std::size_t k = median_interval_rank(s.n);
    s.median_low = k ? samples[k - 1] : s.min;
    s.median_high = k ? samples[s.n - k] : s.max;
    return s;
}

namespace {

// Ranks of a + b together, ties getting their average rank; returns the rank sum of `a` and the
// tie correction term sum(t^3 - t).
void rank_sum(const std::vector<double> &a, const std::vector<double> &b, double &sum_a,
              double &ties) {
    std::vector<std::pair<double, int>> all;
    all.reserve(a.size() + b.size());
    for (double x : a) all.emplace_back(x, 0);
    for (double x : b) all.emplace_back(x, 1);
    std::sort(all.begin(), all.end());
    sum_a = 0;
    ties = 0;
    for (std::size_t i = 0; i < all.size();) {
        std::size_t j = i;
        while (j < all.size() && all[j].first == all[i].first) ++j;
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        const double t = static_cast<double>(j - i);
        ties += t * t * t - t;
        for (std::size_t k = i; k < j; ++k)
            if (all[k].second == 0) sum_a += rank;
        i = j;
    }
}

// Number of arrangements of n1 + n2 values giving each U, by the recurrence
// f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u).
std::vector<double> u_distribution(int n1, int n2) {
    const int max_u = n1 * n2;
    std::vector<std::vector<std::vector<double>>> f(
        n1 + 1, std::vector<std::vector<double>>(n2 + 1, std::vector<double>(max_u + 1, 0)));
    for (int i = 0; i <= n1; ++i)
        for (int j = 0; j <= n2; ++j) {
            if (i == 0 || j == 0) {
                f[i][j][0] = 1;
                continue;
            }
            for (int u = 0; u <= i * j; ++u) {
                double v = f[i][j - 1][u];
                if (u - j >= 0) v += f[i - 1][j][u - j];
                f[i][j][u] = v;
            }
        }
    return f[n1][n2];
}

}  // namespace

double mann_whitney_p(const std::vector<double> &a, const std::vector<double> &b) {
    if (a.empty() || b.empty()) return 1;
    const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
    double sum_a = 0, ties = 0;
    rank_sum(a, b, sum_a, ties);
    const double u1 = sum_a - n1 * (n1 + 1) / 2;
    const double u = std::min(u1, n1 * n2 - u1);
    if (a.size() <= 20 && b.size() <= 20 && ties == 0) {
        const auto counts = u_distribution(static_cast<int>(a.size()), static_cast<int>(b.size()));
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        double tail = 0;
        for (int k = 0; k <= static_cast<int>(u); ++k) tail += counts[k];
        return std::min(1.0, 2 * tail / total);
    }
    const double n = n1 + n2;
    const double mean = n1 * n2 / 2;
    const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (variance <= 0) return 1;
    const double z = (std::fabs(u1 - mean) - 0.5) / std::sqrt(variance);
    return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

}  // namespace ipcbench::stats
