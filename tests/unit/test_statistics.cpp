#include <catch2/catch.hpp>

#include "stats/stream_spread.hpp"
#include "stats/summary_statistics.hpp"

using namespace ipcbench::stats;

TEST_CASE("summary of repeated measurements", "[statistics]") {
    auto s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
    CHECK(s.n == 8);
    CHECK(s.median == Approx(4.5));
    CHECK(s.mean == Approx(5));
    CHECK(s.min == 2);
    CHECK(s.max == 9);
    CHECK(s.stddev == Approx(2.13809).epsilon(1e-5));  // sample (n - 1) standard deviation
    CHECK(s.cv == Approx(0.427618).epsilon(1e-5));
    auto odd = summarize({3, 1, 2});
    CHECK(odd.median == 2);
    auto one = summarize({42});
    CHECK(one.stddev == 0);
    CHECK(one.cv == 0);
    CHECK(summarize({}).n == 0);
}

TEST_CASE("Mann-Whitney U exact p-values against published tables", "[statistics]") {
    // Completely separated samples: U = 0, p = 2 / C(n1 + n2, n1).
    CHECK(mann_whitney_p({1, 2, 3}, {4, 5, 6}) == Approx(0.1));  // 2/20
    CHECK(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}) == Approx(2.0 / 252));
    CHECK(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}) == Approx(2.0 / 252));  // symmetric
    // n1 = 4, n2 = 5, U = 2: P(U <= 2) = (1 + 1 + 2) / 126, two-sided 0.0635.
    CHECK(mann_whitney_p({1, 2, 3, 6}, {4, 5, 7, 8, 9}) == Approx(8.0 / 126));
    // Interleaved samples: no evidence of a difference.
    CHECK(mann_whitney_p({1, 3, 5, 7}, {2, 4, 6, 8}) > 0.5);
    CHECK(mann_whitney_p({}, {1, 2}) == 1);
}

TEST_CASE("Mann-Whitney U normal approximation for large samples and ties", "[statistics]") {
    std::vector<double> low, high;
    for (int i = 1; i <= 25; ++i) low.push_back(i);
    for (int i = 26; i <= 50; ++i) high.push_back(i);
    // U = 0, mean 312.5, variance 25*25*51/12, continuity-corrected z = 6.0536:
    // p = erfc(z / sqrt 2) = 1.42e-9 (scipy.stats.mannwhitneyu, method="asymptotic").
    CHECK(mann_whitney_p(low, high) == Approx(1.42e-9).epsilon(0.05));
    // All values equal: no difference at all.
    CHECK(mann_whitney_p({5, 5, 5}, {5, 5, 5}) == Approx(1));
    // Ties force the approximation; a clear shift is still significant.
    CHECK(mann_whitney_p({1, 1, 2, 2, 3, 3, 4, 4}, {5, 5, 6, 6, 7, 7, 8, 8}) < 0.01);
}

TEST_CASE("stream spread: nearest-rank percentiles and Jain's fairness index", "[statistics]") {
    std::vector<double> hundred;
    for (int i = 100; i >= 1; --i) hundred.push_back(i);  // unsorted on purpose
    const auto s = spread_of(hundred);
    CHECK(s.n == 100);
    CHECK(s.min == 1);
    CHECK(s.p50 == 50);
    CHECK(s.p99 == 99);
    CHECK(s.max == 100);
    // (sum x)^2 / (n sum x^2) = 5050^2 / (100 * 338350)
    CHECK(s.jain == Approx(5050.0 * 5050.0 / (100.0 * 338350.0)));

    CHECK(spread_of({3, 3, 3, 3}).jain == Approx(1.0));
    CHECK(spread_of({8, 0, 0, 0}).jain == Approx(0.25));  // one stream got everything: 1/n
    CHECK(spread_of({1, 2, 3, 4}).jain == Approx(100.0 / 120.0));
    CHECK(spread_of({0, 0}).jain == 1);  // nothing moved: nothing was unfair
    const auto none = spread_of({});
    CHECK(none.n == 0);
    CHECK(none.jain == 1);
    CHECK(spread_of({7}).p99 == 7);
}

TEST_CASE("the median's 95 % interval by ranks: from 6 samples, the ranks of the tables",
          "[statistics]") {
    auto interval = [](std::size_t n) {
        std::vector<double> v;
        for (std::size_t i = n; i >= 1; --i) v.push_back(static_cast<double>(i));  // 1..n, shuffled
        const auto s = summarize(v);
        return std::make_pair(s.median_low, s.median_high);
    };
    // Below 6 no interval of 95 % exists (1/32 > 2.5 % each side): min and max.
    CHECK(interval(5) == std::make_pair(1.0, 5.0));
    CHECK(interval(6) == std::make_pair(1.0, 6.0));     // P(X < 1) = 1/64
    CHECK(interval(8) == std::make_pair(1.0, 8.0));     // P(X < 2) = 9/256 > 2.5 %
    CHECK(interval(9) == std::make_pair(2.0, 8.0));     // P(X < 2) = 10/512
    CHECK(interval(20) == std::make_pair(6.0, 15.0));   // P(X < 6) = 2.07 %
    CHECK(interval(30) == std::make_pair(10.0, 21.0));  // P(X < 10) = 2.14 %
}
