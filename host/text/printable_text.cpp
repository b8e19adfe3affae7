#include "text/printable_text.hpp"

#include <fmt/format.h>

#include <cstdlib>

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

// A sequence that decodes to a character a terminal may act on: a C1 control (U+0080-U+009F,
// CSI among them), a bidirectional control that reorders what follows (the overrides and
// embeddings U+202A-U+202E, the isolates U+2066-U+2069, the marks U+200E, U+200F and U+061C),
// or a line or paragraph separator (U+2028, U+2029: a line break to some terminals and
// editors, so a forged line). Its code point, else 0.
unsigned acting_code_point(const std::string &s, std::size_t i, std::size_t n) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (n == 2 && b(0) == 0xc2 && b(1) <= 0x9f) return b(1);
    if (n == 2 && b(0) == 0xd8 && b(1) == 0x9c) return 0x061c;
    if (n != 3 || b(0) != 0xe2) return 0;
    const unsigned cp = ((b(0) & 0x0fu) << 12) | ((b(1) & 0x3fu) << 6) | (b(2) & 0x3fu);
    const bool bidi = (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
                      cp == 0x200e || cp == 0x200f;
    return bidi || cp == 0x2028 || cp == 0x2029 ? cp : 0;
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
            if (const unsigned cp = acting_code_point(untrusted, i, n); cp != 0)
                out += fmt::format("\\u{:04x}", cp);
            else
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

namespace ipcbench::text {

std::string terminal_text(const std::string &untrusted, std::size_t max_chars) {
    return printable(untrusted, max_chars);
}

std::string markdown_text(const std::string &untrusted, std::size_t max_chars) {
    std::string out;
    for (const char c : printable(untrusted, max_chars)) {
        switch (c) {
            case '|': out += "\\|"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            // A link or an image (a beacon) from a result file stays text: \[x\]\(url\)
            case '[': out += "\\["; break;
            case ']': out += "\\]"; break;
            case '(': out += "\\("; break;
            case ')': out += "\\)"; break;
            case '!': out += "\\!"; break;
            case '`': out += "\\`"; break;
            default: out += c;
        }
    }
    return out;
}

std::string html_text(const std::string &untrusted) {
    std::string out;
    for (const char c : printable(untrusted, 100000)) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string csv_text(const std::string &untrusted) {
    std::string out = printable(untrusted, 4000);
    if (out.empty() || std::string("=+-@").find(out.front()) == std::string::npos) return out;
    // A number (-1.5, +3e6) is a figure, not a formula.
    char *end = nullptr;
    std::strtod(out.c_str(), &end);
    if (end != nullptr && *end == '\0') return out;
    return "'" + out;
}

}  // namespace ipcbench::text
