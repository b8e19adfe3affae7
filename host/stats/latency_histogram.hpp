#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ipcbench::stats {

// Log-linear histogram of non-negative integer values (nanoseconds), in the style of HdrHistogram.
//
// Values below 2^sub_bits (256) are stored exactly. Above, each power-of-two range [2^e, 2^(e+1))
// is split into 2^sub_bits equal buckets of width 2^(e-sub_bits), and a value is reported as the
// middle of its bucket: the reported value is within 1/2^(sub_bits+1) = 0.2% of the recorded one.
// max, min and mean are exact. Histograms merge by adding bucket counts, so percentiles over
// several streams or repetitions are exact to the same bound.
class latency_histogram {
public:
    static constexpr int sub_bits = 8;
    static constexpr double relative_error = 1.0 / (1u << (sub_bits + 1));

    latency_histogram();

    void record(std::uint64_t value) {
        ++counts_[index_of(value)];
        ++count_;
        sum_ += value;
        if (value < min_) min_ = value;
        if (value > max_) max_ = value;
    }
    void merge(const latency_histogram &other);

    std::uint64_t count() const { return count_; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    std::uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
    // The value at percentile p (0 < p <= 100): the smallest recorded value v such that at least
    // p% of the values are <= v, within relative_error; 0 when empty. p = 100 gives max().
    std::uint64_t percentile(double p) const;

    // Calls f(value, count) for each non-empty bucket in increasing order; value is the bucket's
    // reported value (its middle, clamped to the recorded min and max).
    template <class F>
    void for_each_bucket(F &&f) const {
        for (std::size_t i = 0; i < counts_.size(); ++i)
            if (counts_[i]) f(reported_value(i), counts_[i]);
    }

    // Sparse form for the control channel and JSON: {"buckets":[[index,count],...], ...}.
    nlohmann::json to_json() const;
    static latency_histogram from_json(const nlohmann::json &j);

    static std::size_t index_of(std::uint64_t value);
    static std::uint64_t bucket_lower(std::size_t index);
    static std::uint64_t bucket_width(std::size_t index);

private:
    std::uint64_t reported_value(std::size_t index) const;

    std::vector<std::uint64_t> counts_;
    std::uint64_t count_ = 0;
    std::uint64_t sum_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    std::uint64_t max_ = 0;
};

}  // namespace ipcbench::stats
