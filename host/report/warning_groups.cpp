#include "report/warning_groups.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>

#include "report/result_columns.hpp"

namespace ipcbench::report {
namespace {

// A text cut at its numbers: pieces[i] comes before numbers[i]; one more piece ends it.
struct numbered_text {
    std::vector<std::string> pieces;
    std::vector<std::string> numbers;
};

bool digit(char c) {
    return c >= '0' && c <= '9';
}

numbered_text split_numbers(const std::string &text) {
    numbered_text t;
    std::string piece;
    for (std::size_t i = 0; i < text.size();) {
        if (!digit(text[i])) {
            piece += text[i++];
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && digit(text[end])) ++end;
        if (end + 1 < text.size() && text[end] == '.' && digit(text[end + 1]))
            for (++end; end < text.size() && digit(text[end]);) ++end;
        t.pieces.push_back(std::move(piece));
        piece.clear();
        t.numbers.push_back(text.substr(i, end - i));
        i = end;
    }
    t.pieces.push_back(std::move(piece));
    return t;
}

// The kind: the pieces without the numbers.
std::string kind_of(const numbered_text &t) {
    std::string kind;
    for (const auto &p : t.pieces) kind += p + '\x1f';
    return kind;
}

// One text for every member: a number all share as it is, one that differs as "low–high".
std::string merged_text(const std::vector<numbered_text> &members) {
    const numbered_text &first = members.front();
    std::string out;
    for (std::size_t i = 0; i < first.numbers.size(); ++i) {
        out += first.pieces[i];
        const std::string *low = &first.numbers[i], *high = low;
        for (const auto &m : members) {
            const double v = std::strtod(m.numbers[i].c_str(), nullptr);
            if (v < std::strtod(low->c_str(), nullptr)) low = &m.numbers[i];
            if (v > std::strtod(high->c_str(), nullptr)) high = &m.numbers[i];
        }
        out += *low == *high ? *low : *low + "\u2013" + *high;
    }
    return out + first.pieces.back();
}

}  // namespace

std::string warned_case(const case_result &r) {
    std::string label =
        fmt::format("{} {} {}", r.settings.transport_id, format_size(r.settings.size_bytes),
                    model::to_string(r.settings.mode));
    const std::string &s = r.ok() ? r.sender.implementation : r.settings.sender_impl;
    const std::string &v = r.ok() ? r.receiver.implementation : r.settings.receiver_impl;
    if (s != "native" || v != "native") label += fmt::format(" [{} -> {}]", s, v);
    if (r.direction != model::traffic_direction::forward || r.bidir())
        label += std::string(" ") + model::to_string(r.direction) + (r.bidir() ? " (bidir)" : "");
    return label;
}

std::vector<warning_group> group_warnings(const std::vector<const case_result *> &warned) {
    std::vector<std::string> kinds;
    std::vector<std::vector<numbered_text>> members;
    std::vector<std::vector<std::string>> cases;
    for (const auto *r : warned)
        for (const auto &w : r->warnings) {
            numbered_text t = split_numbers(w);
            const std::string kind = kind_of(t);
            auto at = std::find(kinds.begin(), kinds.end(), kind) - kinds.begin();
            if (static_cast<std::size_t>(at) == kinds.size()) {
                kinds.push_back(kind);
                members.emplace_back();
                cases.emplace_back();
            }
            members[at].push_back(std::move(t));
            const std::string label = warned_case(*r);
            if (std::find(cases[at].begin(), cases[at].end(), label) == cases[at].end())
                cases[at].push_back(label);
        }
    std::vector<warning_group> out;
    for (std::size_t i = 0; i < kinds.size(); ++i)
        out.push_back({merged_text(members[i]), std::move(cases[i])});
    return out;
}

}  // namespace ipcbench::report
