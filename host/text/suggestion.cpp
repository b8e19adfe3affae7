#include "text/suggestion.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace ipcbench::text {
namespace {

std::size_t edit_distance(const std::string &a, const std::string &b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                              std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string &given, const std::vector<std::string> &known) {
    if (given.empty() || given.size() > 200) return "";
    const std::string *best = nullptr;
    std::size_t best_distance = 0;
    for (const auto &name : known) {
        const std::size_t d = edit_distance(given, name);
        if (d > 0 && (best == nullptr || d < best_distance)) {
            best = &name;
            best_distance = d;
        }
    }
    const std::size_t allowed = std::max<std::size_t>(2, given.size() / 3);
    if (best == nullptr || best_distance > allowed) return "";
    return " (did you mean '" + *best + "'?)";
}

}  // namespace ipcbench::text
