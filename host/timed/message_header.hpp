#pragma once

#include <cstdint>
#include <cstring>

namespace ipcbench::timed {

// Message layout:
//   [0, 8)   sequence number (low 56 bits) and flags (top bits), little-endian
//   [8, 16)  paced runs: the scheduled send time, CLOCK_MONOTONIC ns
//   [16 or 8, size)  a pattern that depends on the sequence number (checked with --verify)
// The header is why the smallest message the harness measures is 8 bytes (16 when paced).
inline constexpr std::size_t header_bytes = 8;
inline constexpr std::size_t timestamp_offset = 8;
inline constexpr std::uint64_t flag_warmup = std::uint64_t{1} << 62;  // not counted
inline constexpr std::uint64_t flag_end = std::uint64_t{1} << 63;     // last message of a run
inline constexpr std::uint64_t sequence_mask = (std::uint64_t{1} << 56) - 1;

// Little-endian on the wire whatever the host; one load or store where the host is little-endian
// (a byte loop here cost the receiver a tenth of its time at 32 B over shm.ring).
inline void write_u64(unsigned char *at, std::uint64_t value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    std::memcpy(at, &value, sizeof value);
}

inline std::uint64_t read_u64(const unsigned char *at) {
    std::uint64_t value = 0;
    std::memcpy(&value, at, sizeof value);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    return value;
}

inline void write_header(unsigned char *message, std::uint64_t value) {
    write_u64(message, value);
}
inline std::uint64_t read_header(const unsigned char *message) {
    return read_u64(message);
}

}  // namespace ipcbench::timed
