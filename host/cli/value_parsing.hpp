#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ipcbench::cli {

inline constexpr std::uint64_t min_message_size = 8;  // the harness's sequence header
inline constexpr std::uint64_t max_message_size = std::uint64_t{1} << 30;

// "32", "1K", "64k", "1M", "1G" (binary multiples). Throws usage_error naming `flag`, the value
// and what is accepted.
std::uint64_t parse_size(const std::string &flag, const std::string &text);
// The same, up to `max` (a whole number of GiB) instead of the message size limit.
std::uint64_t parse_byte_count(const std::string &flag, const std::string &text, std::uint64_t max);
// Comma-separated sizes and ranges ("32:1M:*4", "1K:4K:+1K"), each checked against
// [min_message_size, max_message_size].
std::vector<std::uint64_t> parse_size_list(const std::string &flag, const std::string &text);
// Seconds as a decimal number; `allow_zero` for the warm-up. Rejects NaN, inf, negatives, > 1 day.
double parse_seconds(const std::string &flag, const std::string &text, bool allow_zero);
std::uint64_t parse_count(const std::string &flag, const std::string &text);
// An integer in [low, high]; a positive finite number (rates, percentages).
// `alternative` follows the range in the error: " (or auto: ...)".
int parse_small_int(const std::string &flag, const std::string &text, int low, int high,
                    const std::string &alternative = "");
double parse_positive(const std::string &flag, const std::string &text, const std::string &unit);

// Splits "a,b,c", dropping empty items.
std::vector<std::string> split_list(const std::string &text);

}  // namespace ipcbench::cli
