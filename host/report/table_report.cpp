#include "report/table_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

#include "report/case_warnings.hpp"
#include "report/condition_checks.hpp"
#include "report/fleet_heatmap.hpp"
#include "report/impl_grid.hpp"
#include "report/warning_groups.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::report {
namespace {

using header_and_column = std::pair<std::string, const column *>;

// A table's cells, each column's width, and which columns it shows.
struct table_cells {
    std::vector<header_and_column> columns;
    std::vector<std::vector<std::string>> rows;  // [row][column]
    std::vector<std::size_t> width;
};

// Untrusted text (a result file's, an agent's) as this format may show it: no terminal control,
// no Markdown or HTML structure of its own.
std::string shown_text(const std::string &untrusted, bool markdown) {
    return markdown ? text::markdown_text(untrusted) : text::terminal_text(untrusted);
}

table_cells cells_of(std::vector<header_and_column> columns,
                     const std::vector<const case_result *> &rows, bool markdown) {
    table_cells t;
    t.columns = std::move(columns);
    for (const auto &c : t.columns) t.width.push_back(c.first.size());
    for (const auto *r : rows) {
        t.rows.emplace_back();
        for (std::size_t i = 0; i < t.columns.size(); ++i) {
            // A column of the CSV only (--columns asked for it by key) shows its CSV value.
            const column &c = *t.columns[i].second;
            t.rows.back().push_back(shown_text(c.text ? c.text(*r) : c.value(*r), markdown));
            t.width[i] = std::max(t.width[i], t.rows.back().back().size());
        }
    }
    return t;
}

// A column's priority in this table: a setting (not a figure) whose cells differ between rows
// is what tells those rows apart, so it is kept as the first figures are (direction with
// --bidir, the engine, a rate), whatever its usual rank.
int priority_here(const table_cells &t, std::size_t i) {
    const column &c = *t.columns[i].second;
    if (!c.figure)
        for (const auto &row : t.rows)
            if (row[i] != t.rows.front()[i]) return 0;
    return c.priority;
}

// The columns to keep within `width`: by priority (table order among equals), while the line
// with two spaces between cells still fits; the rest are named in `left_out`.
std::vector<std::size_t> fitting(const table_cells &t, std::size_t width,
                                 std::vector<std::string> &left_out) {
    std::vector<std::size_t> order(t.columns.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<int> priority(t.columns.size());
    for (std::size_t i = 0; i < t.columns.size(); ++i) priority[i] = priority_here(t, i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return priority[a] < priority[b]; });
    std::vector<std::size_t> kept;
    std::size_t used = 0;
    for (std::size_t i : order) {
        const std::size_t more = t.width[i] + (kept.empty() ? 0 : 2);
        if (used + more <= width || i == 0) {  // the transport column always
            kept.push_back(i);
            used += more;
        } else {
            left_out.push_back(t.columns[i].first);
        }
    }
    std::sort(kept.begin(), kept.end());
    return kept;
}

std::string render(const table_cells &t, const std::vector<std::size_t> &shown, bool markdown) {
    std::string out;
    auto line = [&](auto cell_of) {
        for (std::size_t k = 0; k < shown.size(); ++k) {
            const std::size_t i = shown[k];
            if (markdown) out += "| ";
            // The first column (transport) left-aligned, figures right-aligned.
            out += k == 0 ? fmt::format("{:<{}}", cell_of(i), t.width[i])
                          : fmt::format("{:>{}}", cell_of(i), t.width[i]);
            out += markdown ? " " : "  ";
        }
        if (markdown) out += "|";
        while (!out.empty() && out.back() == ' ') out.pop_back();
        out += "\n";
    };
    line([&](std::size_t i) { return t.columns[i].first; });
    if (markdown) {
        for (std::size_t k = 0; k < shown.size(); ++k)
            out += "|" + std::string(t.width[shown[k]] + 1, '-') + (k == 0 ? "-" : ":");
        out += "|\n";
    }
    for (const auto &row : t.rows) line([&](std::size_t i) { return row[i]; });
    return out;
}

// `text` cut at spaces into lines of at most `width` (a word longer than that stands alone),
// every line after the first indented by `indent`.
std::string wrapped(const std::string &text, std::size_t width, std::size_t indent) {
    std::string out, line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line = std::string(indent, ' ');
        } else if (!line.empty() && line.find_first_not_of(' ') != std::string::npos) {
            line += ' ';
        }
        line += word;
        start = end + 1;
    }
    return out + line + "\n";
}

// The columns of one table as the layout asks: listed by key, every one, or what fits.
std::string table(const run_report &report, table_kind kind,
                  const std::vector<const case_result *> &rows, bool markdown,
                  const table_layout &layout) {
    std::vector<header_and_column> columns;
    if (!layout.columns.empty()) {
        const bool latency = kind == table_kind::latency;
        for (const auto &key : layout.columns)
            if (const column *c = find_column(key); c != nullptr) {
                const std::string &h = latency ? c->latency_header : c->throughput_header;
                columns.emplace_back(h.empty() ? key : h, c);
            }
    } else {
        columns = table_columns(report, kind);
    }
    const table_cells t = cells_of(std::move(columns), rows, markdown);
    std::vector<std::size_t> shown(t.columns.size());
    std::iota(shown.begin(), shown.end(), 0);
    std::vector<std::string> left_out;
    if (!markdown && !layout.wide && layout.columns.empty())
        shown = fitting(t, layout.width, left_out);
    std::string out = render(t, shown, markdown);
    if (!left_out.empty()) {
        std::string names;
        for (const auto &n : left_out) names += (names.empty() ? "" : ", ") + n;
        out += wrapped(fmt::format("({} more: {}; --wide shows them, --columns picks, JSON and CSV "
                                   "have every figure)",
                                   left_out.size(), names),
                       layout.width, 1);
    }
    return out;
}

// The warnings under the tables, one line a kind with the cases it covers (the numbers that
// differ between them as ranges); advice that every placement warning repeats is said once,
// under them all.
std::string warnings_text(const std::vector<const case_result *> &warned, bool markdown,
                          std::size_t width) {
    if (warned.empty()) return "";
    std::string out = fmt::format("\n{}Warnings\n{}", markdown ? "### " : "", markdown ? "\n" : "");
    const std::string advice = std::string(": ") + placement_advice;
    bool advised = false;
    for (auto &group : group_warnings(warned)) {
        std::string &w = group.text;
        if (w.size() > advice.size() &&
            w.compare(w.size() - advice.size(), advice.size(), advice) == 0) {
            w.resize(w.size() - advice.size());
            advised = true;
        }
        std::string cases;
        constexpr std::size_t named = 6;  // the rest counted
        for (std::size_t i = 0; i < group.cases.size() && i < named; ++i)
            cases += (i ? ", " : "") + group.cases[i];
        if (group.cases.size() > named)
            cases += fmt::format(" and {} more", group.cases.size() - named);
        const std::string line = group.cases.size() == 1 ? fmt::format("{}: {}", cases, w)
                                                         : fmt::format("{} ({} cases: {})", w,
                                                                       group.cases.size(), cases);
        out += wrapped(fmt::format("{}{}", markdown ? "- " : "", shown_text(line, markdown)), width,
                       2);
    }
    if (advised)
        out += wrapped(std::string(markdown ? "- " : "") + "Sharing a CPU: " + placement_advice,
                       width, 2);
    return out;
}

// The cases that did not run or failed, each with its reason.
std::string not_measured_text(const std::vector<const case_result *> &bad, bool markdown,
                              std::size_t width) {
    if (bad.empty()) return "";
    std::string out =
        fmt::format("\n{}Not measured\n{}", markdown ? "### " : "", markdown ? "\n" : "");
    for (const auto *r : bad)
        out += wrapped(
            fmt::format("{}{} {} {}: {}: {}", markdown ? "- " : "",
                        shown_text(r->settings.transport_id, markdown),
                        format_size(r->settings.size_bytes), model::to_string(r->settings.mode),
                        to_string(r->status), shown_text(r->error, markdown)),
            width, 2);
    return out;
}

}  // namespace

std::string run_heading(const run_report &report, bool markdown, const table_layout &layout) {
    const auto &env = report.environment;
    auto safe = [markdown](const std::string &untrusted) {
        return shown_text(untrusted, markdown);
    };
    return wrapped(fmt::format("{}ipcbench {} on {} {} ({}, {} cores, load {:.2f}), {}",
                               markdown ? "## " : "", IPCBENCH_VERSION, safe(env.os),
                               safe(env.kernel), env.cpu_model.empty() ? "?" : safe(env.cpu_model),
                               env.cores, env.load_average_1m, safe(report.started_at)),
                   markdown ? std::string::npos / 2 : layout.width, 0);
}

std::string to_table(const run_report &report, bool markdown, const table_layout &layout) {
    const std::string heading = markdown ? "### " : "";
    // Prose lines: wrapped to the table's width in a terminal, whole in a document.
    const std::size_t width = markdown ? std::string::npos / 2 : layout.width;
    auto prose = [&](const std::string &text, std::size_t indent = 0) {
        return wrapped(text, width, indent);
    };
    auto safe = [markdown](const std::string &untrusted) {
        return shown_text(untrusted, markdown);
    };
    std::string out = run_heading(report, markdown, layout);
    if (!report.peer.empty() || !report.from.empty())  // --peer, --from: which host ran what
        out += prose(fmt::format(
            "Two hosts: the client side (sender, pinger) on {}, the server side (receiver, "
            "ponger) on {}",
            report.from.empty() ? std::string("this host") : "agent " + safe(report.from),
            report.peer.empty() ? std::string("this host") : "agent " + safe(report.peer)));
    std::string noted;
    for (const auto &note : condition_notes(report.conditions))
        noted += (noted.empty() ? "" : ", ") + note;
    if (!noted.empty())
        out +=
            prose(fmt::format("Over this run, what may have moved its figures: {} (ipchost "
                              "system says what to change)",
                              safe(noted)));
    std::vector<const case_result *> tp, lat, bad, warned;
    for (const auto &r : report.results) {
        if (is_throughput(r)) tp.push_back(&r);
        if (is_latency(r)) lat.push_back(&r);
        if (!r.ok()) bad.push_back(&r);
        if (!r.warnings.empty()) warned.push_back(&r);
    }
    const auto &d = report.defaults;
    double kit_warmup = d.warmup_s;  // a kit's declared warm-up raises its cases' (kit manifest)
    for (const auto &r : report.results) kit_warmup = std::max(kit_warmup, r.settings.warmup_s);
    const std::string warmup =
        kit_warmup > d.warmup_s
            ? fmt::format("{:g} s warm-up, {:g} s where a kit declares it", d.warmup_s, kit_warmup)
            : fmt::format("{:g} s warm-up", d.warmup_s);
    const std::string how = d.count ? fmt::format("{} messages per stream and case", d.count)
                                    : fmt::format("{:g} s per case after {}", d.duration_s, warmup);
    const std::string repeats =
        report.precision > 0
            ? fmt::format(
                  ", the median of {} to {} repetitions, until its 95 % interval was "
                  "within +/-{:g}% (the repetitions column)",
                  stats::samples_for_median_interval, report.repeat, report.precision * 100)
        : report.repeat > 1
            ? fmt::format(", the median of {} repetitions (cv: their spread)", report.repeat)
            : "";
    if (!tp.empty()) {
        out += "\n" + prose(fmt::format("{}Throughput (one-way, {}{}): MB = 10^6 B, CPU% of one "
                                        "core, total ms first to last message",
                                        heading, how, repeats));
        if (markdown) out += "\n";
        out += table(report, table_kind::throughput, tp, markdown, layout);
    }
    if (!lat.empty()) {
        out += "\n" + prose(fmt::format("{}Latency (round trip, ping-pong{}), microseconds: the "
                                        "pinger times each round trip, the ponger answers; CPU% "
                                        "of one core",
                                        heading, repeats));
        if (markdown) out += "\n";
        out += table(report, table_kind::latency, lat, markdown, layout);
    }
    out += grids_text(impl_grids(report), markdown);
    out += heatmaps_text(fleet_heatmaps(report), markdown);
    out += warnings_text(warned, markdown, width);
    out += not_measured_text(bad, markdown, width);
    return out;
}

}  // namespace ipcbench::report
