#include "text/printable_text.hpp"

#include <fmt/format.h>

namespace ipcbench::text {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (2-4), or 0 when it is not one.
std::size_t utf8_sequence(const std::string &s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
    return n;
}

}  // namespace

std::string printable(const std::string &untrusted, std::size_t max_chars) {
    std::string out;
    std::size_t chars = 0;
    for (std::size_t i = 0; i < untrusted.size(); ++chars) {
        if (chars == max_chars) return out + "...";
        const auto c = static_cast<unsigned char>(untrusted[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
            ++i;
        } else if (std::size_t n = c >= 0x80 ? utf8_sequence(untrusted, i) : 0; n > 0) {
            out.append(untrusted, i, n);
            i += n;
        } else {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    return out;
}

}  // namespace ipcbench::text
