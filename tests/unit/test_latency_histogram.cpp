#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "stats/latency_histogram.hpp"

using ipcbench::stats::latency_histogram;

namespace {

// Exact percentile of sorted data, with the same definition as the histogram: the smallest value
// with at least p% of the values at or below it. The rank in integers (p in hundredths of a
// percent), not in floating point, where 99.9 % of 50,000 is 49,950.000000000007.
std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
    std::sort(v.begin(), v.end());
    const auto hundredths = static_cast<std::uint64_t>(std::llround(p * 100));
    const std::uint64_t rank = (hundredths * v.size() + 9999) / 10000;
    return v[std::max<std::uint64_t>(rank, 1) - 1];
}

void check_within_bound(const latency_histogram &h, const std::vector<std::uint64_t> &values) {
    for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
        auto expected = static_cast<double>(exact_percentile(values, p));
        auto got = static_cast<double>(h.percentile(p));
        INFO("p" << p << " expected " << expected << " got " << got);
        CHECK(std::abs(got - expected) <= expected * latency_histogram::relative_error + 0.5);
    }
}

}  // namespace

TEST_CASE("small values are exact", "[histogram]") {
    latency_histogram h;
    for (std::uint64_t v = 1; v <= 100; ++v) h.record(v);
    CHECK(h.count() == 100);
    CHECK(h.percentile(50) == 50);
    CHECK(h.percentile(90) == 90);
    CHECK(h.percentile(99) == 99);
    CHECK(h.percentile(100) == 100);
    CHECK(h.min() == 1);
    CHECK(h.mean() == Approx(50.5));
}

TEST_CASE("uniform distribution percentiles within the documented error", "[histogram]") {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::uint64_t> dist(1'000, 10'000'000);
    std::vector<std::uint64_t> values(200'000);
    latency_histogram h;
    for (auto &v : values) {
        v = dist(rng);
        h.record(v);
    }
    check_within_bound(h, values);
    CHECK(h.max() == *std::max_element(values.begin(), values.end()));
}

TEST_CASE("long-tailed (lognormal) distribution within the documented error", "[histogram]") {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> dist(10.0, 1.5);  // median ~22 us, heavy tail
    std::vector<std::uint64_t> values(100'000);
    latency_histogram h;
    double sum = 0;
    for (auto &v : values) {
        v = static_cast<std::uint64_t>(dist(rng)) + 1;
        sum += static_cast<double>(v);
        h.record(v);
    }
    check_within_bound(h, values);
    CHECK(h.mean() == Approx(sum / values.size()));
}

TEST_CASE("merging equals recording everything in one", "[histogram]") {
    std::mt19937_64 rng(3);
    std::exponential_distribution<double> dist(1.0 / 50'000);
    latency_histogram a, b, all;
    std::vector<std::uint64_t> values;
    for (int i = 0; i < 50'000; ++i) {
        auto v = static_cast<std::uint64_t>(dist(rng));
        (i % 3 ? a : b).record(v);
        all.record(v);
        values.push_back(v);
    }
    a.merge(b);
    CHECK(a.count() == all.count());
    for (double p : {50.0, 99.0, 99.9}) CHECK(a.percentile(p) == all.percentile(p));
    check_within_bound(a, values);
}

TEST_CASE("JSON round trip keeps every bucket", "[histogram]") {
    latency_histogram h;
    for (std::uint64_t v : {5ull, 300ull, 70'000ull, 70'001ull, 9'000'000'000ull}) h.record(v);
    auto copy = latency_histogram::from_json(nlohmann::json::parse(h.to_json().dump()));
    CHECK(copy.count() == 5);
    CHECK(copy.max() == 9'000'000'000ull);
    CHECK(copy.min() == 5);
    for (double p : {20.0, 40.0, 60.0, 80.0, 100.0}) CHECK(copy.percentile(p) == h.percentile(p));
}

TEST_CASE("bucket boundaries are contiguous", "[histogram]") {
    for (std::uint64_t v : {255ull, 256ull, 257ull, 511ull, 512ull, 1ull << 40, (1ull << 63) + 5}) {
        auto i = latency_histogram::index_of(v);
        CHECK(latency_histogram::bucket_lower(i) <= v);
        CHECK(v - latency_histogram::bucket_lower(i) < latency_histogram::bucket_width(i));
    }
    CHECK(latency_histogram().percentile(50) == 0);
}
