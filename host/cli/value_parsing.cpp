#include "cli/value_parsing.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "cli/usage_error.hpp"

namespace ipcbench::cli {

std::uint64_t parse_size(const std::string &flag, const std::string &text) {
    return parse_byte_count(flag, text, max_message_size);
}

std::uint64_t parse_byte_count(const std::string &flag, const std::string &text,
                               std::uint64_t max) {
    const std::string accepted = "a byte count such as 32, 1K, 64K or 1M";
    if (text.empty() || text[0] < '0' || text[0] > '9')
        throw usage_error(flag + " '" + text + "': expected " + accepted);
    errno = 0;
    char *end = nullptr;
    unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    std::string suffix(end);
    std::uint64_t multiplier = 1;
    if (suffix == "K" || suffix == "k" || suffix == "KiB")
        multiplier = 1024;
    else if (suffix == "M" || suffix == "m" || suffix == "MiB")
        multiplier = std::uint64_t{1} << 20;
    else if (suffix == "G" || suffix == "g" || suffix == "GiB")
        multiplier = std::uint64_t{1} << 30;
    else if (!suffix.empty() && suffix != "B")
        throw usage_error(flag + " '" + text + "': unknown unit '" + suffix + "'; expected " +
                          accepted);
    if (errno == ERANGE || value > max / multiplier)
        throw usage_error(flag + " '" + text + "': larger than the " + std::to_string(max >> 30) +
                          " GiB limit");
    return value * multiplier;
}

namespace {

// "32:1M:*4" -> 32, 128, ..., 1M (the last at most 1M); "1K:8K:+1K" -> 1K, 2K, ..., 8K.
std::vector<std::uint64_t> expand_range(const std::string &flag, const std::string &item) {
    const auto first_colon = item.find(':');
    const auto second_colon = item.find(':', first_colon + 1);
    const std::string accepted = "a range FROM:TO:*FACTOR or FROM:TO:+STEP, e.g. 32:1M:*4";
    if (second_colon == std::string::npos)
        throw usage_error(flag + " '" + item + "': expected " + accepted);
    const std::uint64_t from = parse_size(flag, item.substr(0, first_colon));
    const std::uint64_t to =
        parse_size(flag, item.substr(first_colon + 1, second_colon - first_colon - 1));
    const std::string step = item.substr(second_colon + 1);
    if (step.size() < 2 || (step[0] != '*' && step[0] != '+'))
        throw usage_error(flag + " '" + item + "': expected " + accepted);
    const std::uint64_t by = parse_size(flag, step.substr(1));
    if (from > to || by == 0 || (step[0] == '*' && by < 2))
        throw usage_error(flag + " '" + item +
                          "': FROM must not exceed TO and the step must grow "
                          "(*2 or more, +1 or more)");
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t s = from; s <= to && sizes.size() <= 1000;
         s = step[0] == '*' ? s * by : s + by)
        sizes.push_back(s);
    if (sizes.size() > 1000) throw usage_error(flag + " '" + item + "': more than 1000 sizes");
    return sizes;
}

}  // namespace

std::vector<std::uint64_t> parse_size_list(const std::string &flag, const std::string &text) {
    std::vector<std::uint64_t> sizes, items;
    for (const auto &item : split_list(text)) {
        if (item.find(':') != std::string::npos) {
            auto range = expand_range(flag, item);
            items.insert(items.end(), range.begin(), range.end());
        } else {
            items.push_back(parse_size(flag, item));
        }
    }
    for (std::uint64_t size : items) {
        const std::string item = std::to_string(size);
        if (size < min_message_size)
            throw usage_error(flag + " '" + item + "': messages must be at least " +
                              std::to_string(min_message_size) +
                              " bytes (each carries an 8-byte sequence header); use 8 or more");
        sizes.push_back(size);
    }
    if (sizes.empty()) throw usage_error(flag + " needs at least one size, e.g. 32,1K,64K");
    return sizes;
}

double parse_seconds(const std::string &flag, const std::string &text, bool allow_zero) {
    errno = 0;
    char *end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    const std::string accepted = allow_zero ? "seconds from 0 to 86400, e.g. 0.5"
                                            : "seconds above 0 and up to 86400, e.g. 2 or 0.5";
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value) || value < 0 ||
        (!allow_zero && value == 0) || value > 86400)
        throw usage_error(flag + " '" + text + "': expected " + accepted);
    return value;
}

int parse_small_int(const std::string &flag, const std::string &text, int low, int high,
                    const std::string &alternative) {
    errno = 0;
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || value < low || value > high)
        throw usage_error(flag + " '" + text + "': expected a whole number from " +
                          std::to_string(low) + " to " + std::to_string(high) + alternative);
    return static_cast<int>(value);
}

double parse_positive(const std::string &flag, const std::string &text, const std::string &unit) {
    errno = 0;
    char *end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value) || value <= 0 ||
        value > 1e12)
        throw usage_error(flag + " '" + text + "': expected a positive number of " + unit);
    return value;
}

std::uint64_t parse_count(const std::string &flag, const std::string &text) {
    errno = 0;
    char *end = nullptr;
    if (text.empty() || text[0] < '0' || text[0] > '9')
        throw usage_error(flag + " '" + text + "': expected a whole number of messages >= 1");
    unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value == 0 || value > (1ull << 50))
        throw usage_error(flag + " '" + text + "': expected a whole number of messages >= 1");
    return value;
}

std::vector<std::string> split_list(const std::string &text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) items.push_back(item);
    return items;
}

}  // namespace ipcbench::cli
