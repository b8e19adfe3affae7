#pragma once

#include <cstdint>
#include <vector>

namespace ipcbench::stats {

// Classifies arriving sequence numbers: first arrivals, duplicates (seen before), and out-of-order
// arrivals (below the highest seen so far). One bit per sequence number: 1 MiB covers 8 M
// messages, so a whole run is tracked exactly.
class sequence_tracker {
public:
    // Returns false for a duplicate.
    bool record(std::uint64_t seq) {
        const std::size_t word = static_cast<std::size_t>(seq >> 6);
        if (word >= seen_.size()) seen_.resize(word + 1 + seen_.size() / 2, 0);
        const std::uint64_t bit = std::uint64_t{1} << (seq & 63);
        if (seen_[word] & bit) {
            ++duplicates_;
            return false;
        }
        seen_[word] |= bit;
        if (any_ && seq < highest_) ++out_of_order_;
        if (!any_ || seq > highest_) highest_ = seq;
        any_ = true;
        ++unique_;
        return true;
    }

    std::uint64_t unique() const { return unique_; }
    std::uint64_t highest_plus_one() const { return any_ ? highest_ + 1 : 0; }
    std::uint64_t duplicates() const { return duplicates_; }
    std::uint64_t out_of_order() const { return out_of_order_; }

private:
    std::vector<std::uint64_t> seen_;
    std::uint64_t highest_ = 0;
    bool any_ = false;
    std::uint64_t unique_ = 0, duplicates_ = 0, out_of_order_ = 0;
};

}  // namespace ipcbench::stats
