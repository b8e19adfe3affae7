#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace ipcbench::timed
