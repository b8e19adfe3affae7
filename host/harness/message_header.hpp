#pragma once

#include <cstdint>
#include <cstring>

namespace ipcbench::harness {

// Every message the harness sends starts with 8 bytes: a sequence number in the low 56 bits and
// flags in the top byte, little-endian. The rest of the message is a fixed pattern. This is why
// the smallest message the harness measures is 8 bytes.
inline constexpr std::size_t header_bytes = 8;
inline constexpr std::uint64_t flag_warmup = std::uint64_t{1} << 62;  // not counted
inline constexpr std::uint64_t flag_end = std::uint64_t{1} << 63;     // last message of a run
inline constexpr std::uint64_t sequence_mask = (std::uint64_t{1} << 56) - 1;

inline void write_header(unsigned char *message, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) message[i] = static_cast<unsigned char>(value >> (8 * i));
}

inline std::uint64_t read_header(const unsigned char *message) {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= std::uint64_t{message[i]} << (8 * i);
    return value;
}

}  // namespace ipcbench::harness
