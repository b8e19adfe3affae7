#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ipcbench::timed {

// The payload after the header: a fixed byte sequence shifted by the sequence number, so a
// message's content depends on which message it is. Writing or checking it is one memcpy or
// memcmp from a table built once per run.
class payload_pattern {
public:
    payload_pattern(std::size_t message_size, std::size_t offset)
        : offset_(offset < message_size ? offset : message_size),
          length_(message_size - offset_),
          table_(length_ + period) {
        for (std::size_t i = 0; i < table_.size(); ++i)
            table_[i] = static_cast<unsigned char>((i * 131 + 7) & 0xff);
    }
    void write(unsigned char *message, std::uint64_t seq) const {
        if (length_) std::memcpy(message + offset_, table_.data() + seq % period, length_);
    }
    bool matches(const unsigned char *message, std::uint64_t seq) const {
        return !length_ ||
               std::memcmp(message + offset_, table_.data() + seq % period, length_) == 0;
    }

private:
    static constexpr std::size_t period = 251;  // prime: shifts never line up with sizes
    std::size_t offset_, length_;
    std::vector<unsigned char> table_;
};

// `ipchost check --impl` proves a kit's --verify by one corrupted message: its native sender,
// started with IPCBENCH_CHECK_CORRUPT_MESSAGE=N in its environment (set by the check for that
// case, never by a user's run), flips the last byte of timed message N when --verify is on.
// No such message otherwise (UINT64_MAX).
inline std::uint64_t message_to_corrupt(bool verify, std::size_t message_size,
                                        std::size_t pattern_offset) {
    const char *n =
        verify && message_size > pattern_offset
            ? std::getenv("IPCBENCH_CHECK_CORRUPT_MESSAGE")  // NOLINT(concurrency-mt-unsafe)
            : nullptr;
    return n && *n ? std::strtoull(n, nullptr, 10) : UINT64_MAX;
}

}  // namespace ipcbench::timed
