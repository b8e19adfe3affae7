#pragma once

#include <array>
#include <cstdint>

namespace ipcbench::stats {

// Classifies arriving sequence numbers: first arrivals, duplicates (seen before) and out-of-order
// arrivals (below the highest seen so far), in fixed memory whatever the run length: a sliding
// window over the last `window` sequence numbers below the highest, as IPsec's anti-replay
// window. An arrival older than the window cannot be told from a duplicate; it is counted as an
// out-of-order first arrival and, apart, in beyond_window() (reported, so a user knows when the
// duplicate count is a lower bound).
class sequence_tracker {
public:
    static constexpr std::uint64_t window = std::uint64_t{1} << 16;  // 8 KiB of bits

    // Returns false for a duplicate.
    bool record(std::uint64_t seq) {
        if (seq == highest_ + 1 && any_) {  // the next in order, nearly every message: the
            highest_ = seq;                 // window slides by one, this bit set (what
            set(seq);                       // advance_to and set would do, without the loop)
            ++unique_;
            return true;
        }
        if (!any_) {
            any_ = true;
            highest_ = seq;
            set(seq);
            ++unique_;
            return true;
        }
        if (seq > highest_) {
            advance_to(seq);
            set(seq);
            ++unique_;
            return true;
        }
        if (highest_ - seq >= window) {
            ++beyond_window_;
            ++out_of_order_;
            ++unique_;
            return true;
        }
        if (test(seq)) {
            ++duplicates_;
            return false;
        }
        set(seq);
        ++out_of_order_;
        ++unique_;
        return true;
    }

    std::uint64_t unique() const { return unique_; }
    std::uint64_t highest_plus_one() const { return any_ ? highest_ + 1 : 0; }
    std::uint64_t duplicates() const { return duplicates_; }
    std::uint64_t out_of_order() const { return out_of_order_; }
    std::uint64_t beyond_window() const { return beyond_window_; }

private:
    static constexpr std::uint64_t words = window / 64;

    bool test(std::uint64_t seq) const { return (bits_[(seq / 64) % words] >> (seq % 64)) & 1u; }
    void set(std::uint64_t seq) { bits_[(seq / 64) % words] |= std::uint64_t{1} << (seq % 64); }

    // Slides the window up to `seq`: the numbers between the old highest and `seq` were not seen.
    void advance_to(std::uint64_t seq) {
        if (seq - highest_ >= window) {
            bits_.fill(0);
        } else {
            for (std::uint64_t s = highest_ + 1; s <= seq; ++s) {
                if (s % 64 == 0 && seq - s >= 63) {
                    bits_[(s / 64) % words] = 0;  // a whole word at once
                    s += 63;
                    continue;
                }
                bits_[(s / 64) % words] &= ~(std::uint64_t{1} << (s % 64));
            }
        }
        highest_ = seq;
    }

    std::array<std::uint64_t, words> bits_{};
    std::uint64_t highest_ = 0;
    bool any_ = false;
    std::uint64_t unique_ = 0, duplicates_ = 0, out_of_order_ = 0, beyond_window_ = 0;
};

}  // namespace ipcbench::stats
