#include "report/repetition_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace ipcbench::report {

namespace {

// The repetition whose figures a repeated result shows: the median by the headline figure
// (throughput: bytes/s; latency: p50), the lower of the two middle ones for an even count.
std::size_t median_index(const std::vector<const case_result *> &ok, const std::string &figure) {
    std::vector<std::pair<double, std::size_t>> order;  // (figure, repetition)
    order.reserve(ok.size());
    for (std::size_t i = 0; i < ok.size(); ++i) {
        const auto f = comparable_figures(*ok[i]);
        const auto it = f.find(figure);
        order.emplace_back(it == f.end() ? 0.0 : it->second, i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    return order[(order.size() - 1) / 2].second;
}

repetition_totals totals_of(const std::vector<const case_result *> &ok) {
    repetition_totals t;
    for (const auto *rep : ok) {
        t.duration_s += rep->duration_s;
        t.integrity.messages_sent += rep->integrity.messages_sent;
        t.integrity.messages_received += rep->integrity.messages_received;
        t.integrity.lost += rep->integrity.lost;
        t.integrity.out_of_order += rep->integrity.out_of_order;
        t.integrity.duplicated += rep->integrity.duplicated;
        t.integrity.corrupted += rep->integrity.corrupted;
        t.integrity.beyond_window += rep->integrity.beyond_window;
        t.latency_samples += rep->latency ? rep->latency->samples : 0;
    }
    return t;
}

// What may narrow the spread, leaving out what this run already did.
std::string spread_advice(const case_result &r) {
    const auto &pin = r.settings.affinity;
    std::string advice =
        pin.sender_cpu >= 0 || pin.receiver_cpu >= 0 ? "" : "pin with --affinity, ";
    advice += r.settings.count > 0 ? "raise --count" : "lengthen --duration";
    return advice + " or add repetitions";
}

void warn_about_spread(case_result &r, double cv_warning) {
    for (const char *figure : {"bytes_per_sec", "latency_p50_ns", "latency_p99_ns"}) {
        auto it = r.statistics.find(figure);
        if (it != r.statistics.end() && it->second.first.n > 1 && it->second.first.cv > cv_warning)
            r.warnings.push_back(fmt::format(
                "{} varies by {:.1f}% (cv) over {} repetitions: a noisy machine; {}", figure,
                it->second.first.cv * 100, it->second.first.n, spread_advice(r)));
    }
}

}  // namespace

void summarize_repetitions(case_result &r, double cv_warning) {
    std::vector<const case_result *> ok;
    for (const auto &rep : r.repetitions)
        if (rep.ok()) ok.push_back(&rep);
    const std::size_t failed = r.repetitions.size() - ok.size();
    if (ok.empty()) {
        if (!r.repetitions.empty()) {
            r.status = r.repetitions.back().status;
            r.error = r.repetitions.back().error;
        }
        return;
    }
    std::vector<std::string> warnings;
    if (failed)
        warnings.push_back(fmt::format("{} of {} repetitions failed: {}", failed,
                                       r.repetitions.size(), r.repetitions.back().error));

    // Every figure's samples and spread.
    std::map<std::string, std::vector<double>> samples;
    for (const auto *rep : ok)
        for (const auto &[name, value] : comparable_figures(*rep)) samples[name].push_back(value);
    decltype(r.statistics) statistics;
    for (auto &[name, values] : samples) statistics[name] = {stats::summarize(values), values};

    const std::size_t median = median_index(ok, headline_figure(*ok.front()));
    auto repetitions = std::move(r.repetitions);
    const auto totals = totals_of(ok);
    const case_result chosen = *ok[median];  // ok points into `repetitions`, still alive
    r = chosen;
    r.repetitions = std::move(repetitions);
    r.statistics = std::move(statistics);
    r.totals = totals;
    r.repeat_count = static_cast<int>(ok.size());
    r.median_repetition = static_cast<int>(median);
    r.warnings = std::move(warnings);
    warn_about_spread(r, cv_warning);
    if (totals.integrity.lost)
        r.warnings.push_back(fmt::format("{} {} lost over {} repetitions", totals.integrity.lost,
                                         totals.integrity.lost == 1 ? "message" : "messages",
                                         r.repeat_count));
    if (totals.integrity.corrupted)
        r.warnings.push_back(
            fmt::format("{} {} corrupted over {} repetitions", totals.integrity.corrupted,
                        totals.integrity.corrupted == 1 ? "message" : "messages", r.repeat_count));
}

const char *headline_figure(const case_result &r) {
    return r.is(model::measure_mode::latency) ? "latency_p50_ns" : "bytes_per_sec";
}

namespace {

// The headline figure's summary over the repetitions that measured it, or null.
std::optional<stats::summary> headline_summary(const std::vector<case_result> &repetitions) {
    std::vector<double> values;
    for (const auto &rep : repetitions) {
        if (!rep.ok()) continue;
        const auto f = comparable_figures(rep);
        const auto it = f.find(headline_figure(rep));
        if (it != f.end()) values.push_back(it->second);
    }
    if (values.empty()) return std::nullopt;
    return stats::summarize(std::move(values));
}

bool within(const stats::summary &s, double precision) {
    return s.n >= stats::samples_for_median_interval && s.median > 0 &&
           s.median_high - s.median <= precision * s.median &&
           s.median - s.median_low <= precision * s.median;
}

}  // namespace

bool precise_enough(const std::vector<case_result> &repetitions, double precision) {
    const auto s = headline_summary(repetitions);
    return s && within(*s, precision);
}

void warn_if_imprecise(case_result &r, double precision) {
    const auto s =
        headline_summary(r.repetitions.empty() ? std::vector<case_result>{r} : r.repetitions);
    if (!s || within(*s, precision)) return;
    r.warnings.push_back(fmt::format(
        "{}'s median is known to [{:.1f}%, +{:.1f}%] (95 % interval) after {} repetitions, not "
        "the +/-{:g}% asked: a noisy machine (ipchost system says what moves figures here); {} "
        "(a higher --repeat)",
        headline_figure(r), s->median > 0 ? (s->median_low / s->median - 1) * 100 : 0,
        s->median > 0 ? (s->median_high / s->median - 1) * 100 : 0, s->n, precision * 100,
        spread_advice(r)));
}

}  // namespace ipcbench::report
