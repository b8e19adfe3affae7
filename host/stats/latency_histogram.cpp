#include "stats/latency_histogram.hpp"

#include "stats/nearest_rank.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ipcbench::stats {
namespace {

constexpr std::size_t sub_count = std::size_t{1} << latency_histogram::sub_bits;
// Index space: [0, sub_count) exact values, then one block of sub_count per exponent above.
constexpr std::size_t bucket_count = sub_count * (64 - latency_histogram::sub_bits + 1);

int msb(std::uint64_t v) {
    return 63 - __builtin_clzll(v);
}

}  // namespace

latency_histogram::latency_histogram() : counts_(bucket_count, 0) {}

std::size_t latency_histogram::index_of(std::uint64_t value) {
    if (value < sub_count) return static_cast<std::size_t>(value);
    int shift = msb(value) - sub_bits;  // >= 0
    std::size_t block = static_cast<std::size_t>(shift) + 1;
    return block * sub_count + static_cast<std::size_t>((value >> shift) - sub_count);
}

std::uint64_t latency_histogram::bucket_lower(std::size_t index) {
    if (index < sub_count) return index;
    std::size_t block = index / sub_count;
    std::uint64_t offset = index % sub_count;
    int shift = static_cast<int>(block) - 1;
    return (sub_count + offset) << shift;
}

std::uint64_t latency_histogram::bucket_width(std::size_t index) {
    if (index < sub_count) return 1;
    return std::uint64_t{1} << (index / sub_count - 1);
}

void latency_histogram::merge(const latency_histogram &other) {
    for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    if (other.count_ && other.min_ < min_) min_ = other.min_;
    if (other.max_ > max_) max_ = other.max_;
}

std::uint64_t latency_histogram::percentile(double p) const {
    if (count_ == 0) return 0;
    if (p >= 100.0) return max_;
    const std::uint64_t rank = nearest_rank(p, count_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        seen += counts_[i];
        if (seen >= rank) return reported_value(i);
    }
    return max_;
}

std::uint64_t latency_histogram::reported_value(std::size_t index) const {
    std::uint64_t mid = bucket_lower(index) + bucket_width(index) / 2;
    // Never report outside what was recorded.
    if (mid > max_) mid = max_;
    if (mid < min_) mid = min_;
    return mid;
}

nlohmann::json latency_histogram::to_json() const {
    nlohmann::json buckets = nlohmann::json::array();
    for (std::size_t i = 0; i < counts_.size(); ++i)
        if (counts_[i]) buckets.push_back({i, counts_[i]});
    return {{"buckets", buckets}, {"count", count_}, {"sum", sum_},
            {"min", min()},       {"max", max_},     {"sub_bits", sub_bits}};
}

latency_histogram latency_histogram::from_json(const nlohmann::json &j) {
    latency_histogram h;
    if (j.at("sub_bits").get<int>() != sub_bits)
        throw std::runtime_error("histogram with a different resolution");
    for (const auto &pair : j.at("buckets")) {
        auto index = pair.at(0).get<std::size_t>();
        if (index >= h.counts_.size()) throw std::runtime_error("histogram bucket out of range");
        h.counts_[index] += pair.at(1).get<std::uint64_t>();
    }
    h.count_ = j.at("count").get<std::uint64_t>();
    h.sum_ = j.at("sum").get<std::uint64_t>();
    h.min_ = h.count_ ? j.at("min").get<std::uint64_t>() : UINT64_MAX;
    h.max_ = j.at("max").get<std::uint64_t>();
    return h;
}

}  // namespace ipcbench::stats
