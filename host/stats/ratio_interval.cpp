#include "stats/ratio_interval.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <utility>

namespace ipcbench::stats {
namespace {

// Past these sizes the distributions are the normal approximation (with continuity correction):
// the exact counts would cost more than they add.
constexpr std::size_t exact_pairs = 300;
constexpr std::size_t exact_sample = 50;

double normal_cdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double log_median(std::vector<double> v) {
    if (v.empty()) return 0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2) return upper;
    return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

// 1.4826 x the median absolute deviation: the standard deviation of normal data, robust to one
// odd sample.
double robust_scatter(const std::vector<double> &v) {
    const double m = log_median(v);
    std::vector<double> dev;
    dev.reserve(v.size());
    for (double x : v) dev.push_back(std::fabs(x - m));
    return 1.4826 * log_median(dev);
}

// The logs of the positive samples (a figure of 0 has no ratio).
std::vector<double> logs_of(const std::vector<double> &v) {
    std::vector<double> out;
    for (double x : v)
        if (x > 0 && std::isfinite(x)) out.push_back(std::log(x));
    return out;
}

// log(next / base) of each pair where both are positive.
std::vector<double> log_ratios(const std::vector<double> &base, const std::vector<double> &next) {
    std::vector<double> out;
    for (std::size_t i = 0; i < std::min(base.size(), next.size()); ++i)
        if (base[i] > 0 && next[i] > 0 && std::isfinite(base[i]) && std::isfinite(next[i]))
            out.push_back(std::log(next[i] / base[i]));
    return out;
}

// The largest count c with cdf[c] <= tail (the c lowest of the sorted estimates are left out of
// each end of the interval); -1 when even c = 0 is too likely.
long interval_rank(const std::vector<double> &cdf, double tail) {
    long c = -1;
    for (std::size_t w = 0; w < cdf.size() && cdf[w] <= tail; ++w) c = static_cast<long>(w);
    return c;
}

void set_interval(ratio_estimate &e, std::vector<double> &estimates, const std::vector<double> &cdf,
                  double confidence) {
    std::sort(estimates.begin(), estimates.end());
    e.ratio = std::exp(log_median(estimates));
    e.low = e.high = e.ratio;
    const long c = interval_rank(cdf, (1 - confidence) / 2);
    if (c < 0 || estimates.empty()) return;
    const auto last = static_cast<long>(estimates.size()) - 1;
    e.interval = true;
    e.low = std::exp(estimates[static_cast<std::size_t>(c)]);
    e.high = std::exp(estimates[static_cast<std::size_t>(last - c)]);
}

// The normal approximation of a rank statistic's distribution, P(S <= s) for s = 0..max.
std::vector<double> normal_counts(std::size_t max, double mean, double variance) {
    std::vector<double> cdf(max + 1);
    const double sd = std::sqrt(variance);
    for (std::size_t s = 0; s <= max; ++s)
        cdf[s] = normal_cdf((static_cast<double>(s) + 0.5 - mean) / sd);
    return cdf;
}

std::vector<double> cumulative(std::vector<double> p) {
    for (std::size_t i = 1; i < p.size(); ++i) p[i] += p[i - 1];
    return p;
}

}  // namespace

std::vector<double> signed_rank_cdf(std::size_t n) {
    const std::size_t max = n * (n + 1) / 2;
    if (n > exact_pairs) {
        const double nn = static_cast<double>(n);
        return normal_counts(max, nn * (nn + 1) / 4, nn * (nn + 1) * (2 * nn + 1) / 24);
    }
    // Each rank k joins W+ or not, with probability 1/2 each.
    std::vector<double> p(max + 1, 0);
    p[0] = 1;
    std::size_t reach = 0;
    for (std::size_t k = 1; k <= n; ++k) {
        reach += k;
        for (std::size_t w = reach; w >= k; --w) p[w] = 0.5 * p[w] + 0.5 * p[w - k];
        for (std::size_t w = 0; w < k && w <= reach; ++w) p[w] *= 0.5;
    }
    return cumulative(std::move(p));
}

std::vector<double> rank_sum_cdf(std::size_t m, std::size_t n) {
    if (m > exact_sample || n > exact_sample) {
        const double a = static_cast<double>(m), b = static_cast<double>(n);
        return normal_counts(m * n, a * b / 2, a * b * (a + b + 1) / 12);
    }
    // f[i][j][u]: P(U = u) for samples of i and j; the largest value of all is one of the j
    // (it beats all i: u - i) with probability j / (i + j), else one of the i.
    std::vector<std::vector<std::vector<double>>> f(m + 1, std::vector<std::vector<double>>(n + 1));
    for (std::size_t i = 0; i <= m; ++i)
        for (std::size_t j = 0; j <= n; ++j) {
            auto &cell = f[i][j];
            cell.assign(i * j + 1, 0);
            if (i == 0 || j == 0) {
                cell[0] = 1;
                continue;
            }
            const double from_j = static_cast<double>(j) / static_cast<double>(i + j);
            const auto &y_top = f[i][j - 1], &x_top = f[i - 1][j];
            for (std::size_t u = 0; u < y_top.size(); ++u) cell[u + i] += from_j * y_top[u];
            for (std::size_t u = 0; u < x_top.size(); ++u) cell[u] += (1 - from_j) * x_top[u];
        }
    return cumulative(f[m][n]);
}

ratio_estimate paired_ratio(const std::vector<double> &base, const std::vector<double> &next,
                            double confidence) {
    ratio_estimate e;
    const auto d = log_ratios(base, next);
    e.n = d.size();
    if (d.empty()) return e;
    std::vector<double> walsh;  // (d_i + d_j) / 2 for i <= j
    walsh.reserve(d.size() * (d.size() + 1) / 2);
    for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
    set_interval(e, walsh, signed_rank_cdf(d.size()), confidence);
    e.noise = robust_scatter(d);
    return e;
}

ratio_estimate unpaired_ratio(const std::vector<double> &base, const std::vector<double> &next,
                              double confidence) {
    ratio_estimate e;
    const auto x = logs_of(base), y = logs_of(next);
    e.n = std::min(x.size(), y.size());
    if (x.empty() || y.empty()) return e;
    std::vector<double> shifts;
    shifts.reserve(x.size() * y.size());
    for (double b : x)
        for (double a : y) shifts.push_back(a - b);
    set_interval(e, shifts, rank_sum_cdf(x.size(), y.size()), confidence);
    e.noise = std::hypot(robust_scatter(x), robust_scatter(y));
    return e;
}

double paired_p_below(const std::vector<double> &base, const std::vector<double> &next,
                      double bound) {
    std::vector<double> d;
    for (double r : log_ratios(base, next))
        if (const double shifted = r - std::log(bound); shifted != 0) d.push_back(shifted);
    if (d.empty()) return 1;
    // Ranks of |d|, ties sharing their mean rank; W+ sums the ranks of the positive ones.
    std::vector<std::pair<double, bool>> ranked;
    ranked.reserve(d.size());
    for (double x : d) ranked.emplace_back(std::fabs(x), x > 0);
    std::sort(ranked.begin(), ranked.end());
    double w_plus = 0;
    for (std::size_t i = 0; i < ranked.size();) {
        std::size_t j = i;
        while (j < ranked.size() && ranked[j].first == ranked[i].first) ++j;
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        for (std::size_t k = i; k < j; ++k) w_plus += ranked[k].second ? rank : 0;
        i = j;
    }
    const auto cdf = signed_rank_cdf(d.size());
    return cdf[std::min(cdf.size() - 1, static_cast<std::size_t>(std::floor(w_plus + 1e-9)))];
}

double unpaired_p_below(const std::vector<double> &base, const std::vector<double> &next,
                        double bound) {
    const auto x = logs_of(base), y = logs_of(next);
    if (x.empty() || y.empty()) return 1;
    const double shift = std::log(bound);
    double u = 0;  // pairs where new (shifted) beats base, ties a half
    for (double b : x)
        for (double a : y) u += a - shift > b ? 1 : a - shift == b ? 0.5 : 0;
    const auto cdf = rank_sum_cdf(x.size(), y.size());
    return cdf[std::min(cdf.size() - 1, static_cast<std::size_t>(std::floor(u + 1e-9)))];
}

std::vector<double> holm_adjust(const std::vector<double> &p) {
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
    std::vector<double> out(p.size());
    double running = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const double scaled = static_cast<double>(p.size() - k) * p[order[k]];
        running = std::max(running, std::min(1.0, scaled));
        out[order[k]] = running;
    }
    return out;
}

std::size_t least_pairs_for(double alpha) {
    std::size_t n = 1;
    while (std::pow(0.5, static_cast<double>(n)) > alpha && n < 64) ++n;
    return n;
}

}  // namespace ipcbench::stats
