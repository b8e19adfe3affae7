#include "report/verdict_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "model/case_result.hpp"

namespace ipcbench::report {
namespace {

constexpr double pi = 3.14159265358979323846;

// z with P(Z > z) = tail, by bisection (tails from 1e-12 to 0.5).
double upper_z(double tail) {
    double low = 0, high = 8;
    for (int i = 0; i < 80; ++i) {
        const double mid = (low + high) / 2;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? low : high) = mid;
    }
    return (low + high) / 2;
}

// Twice the one-sided p that the ratio new / base lies below (above) `bound`.
double p_ratio_below(const figure_change &c, double bound, bool paired) {
    const double p = paired ? stats::paired_p_below(c.base, c.next, bound)
                            : stats::unpaired_p_below(c.base, c.next, bound);
    return std::min(1.0, 2 * p);
}
double p_ratio_above(const figure_change &c, double bound, bool paired) {
    const double p = paired ? stats::paired_p_below(c.next, c.base, 1 / bound)
                            : stats::unpaired_p_below(c.next, c.base, 1 / bound);
    return std::min(1.0, 2 * p);
}

// How many samples (rounds, or repetitions per file) would make the interval narrow enough to
// decide, at the noise measured: the Hodges-Lehmann interval's half-width is about
// z noise / sqrt(n 3 / pi) (its efficiency against the mean is 3 / pi for normal data).
void estimate_rounds(figure_change &c, const gate_settings &s, double z) {
    const double l = std::log(c.estimate.ratio), low = std::log(1 - s.threshold),
                 high = std::log(1 + s.threshold);
    const double margin = l < low ? low - l : l > high ? l - high : std::min(l - low, high - l);
    const double noise = std::max(c.estimate.noise, 1e-6);
    const double half_at_most = z * noise / std::sqrt(static_cast<double>(s.most_rounds) * 3 / pi);
    const char *unit = s.paired ? "rounds" : "repetitions per file";
    const char *one = s.paired ? "round" : "sample";
    // A change far past the threshold needs few samples to show it, whatever the noise: the
    // samples to decide come from the margin first. The estimate itself moves as samples come,
    // so one near a threshold asks for the most there may be, never for none.
    const auto have = static_cast<double>(c.estimate.n);
    const double most = static_cast<double>(s.most_rounds);
    const double needed =
        margin <= 1e-9 ? most : std::min(most, std::ceil(std::pow(z * noise / margin, 2) * pi / 3));
    if (needed < most) {
        c.more_rounds = static_cast<std::size_t>(std::max(1.0, needed - have));
        c.note = fmt::format("about {} more {} would decide it (noise +/-{:.1f} % a {})",
                             c.more_rounds, unit, noise_share(c.estimate.noise) * 100, one);
        return;
    }
    // Only when even the most samples could not resolve +/-T is the answer the machine's noise
    // (more_rounds 0: auto rounds stop here).
    if (half_at_most >= s.threshold * 0.999) {
        c.note = fmt::format(
            "cannot detect {:g} % on this machine now (noise +/-{:.1f} % a {}; {} {} would give "
            "+/-{:.1f} %)",
            s.threshold * 100, noise_share(c.estimate.noise) * 100, one, s.most_rounds, unit,
            (std::exp(half_at_most) - 1) * 100);
        return;
    }
    c.more_rounds = static_cast<std::size_t>(std::max(1.0, most - have));
    c.note = fmt::format(
        "the ratio lies near a threshold: even {} {} may not decide it (noise "
        "+/-{:.1f} % a {})",
        s.most_rounds, unit, noise_share(c.estimate.noise) * 100, one);
}

void judge_one(figure_change &c, const gate_settings &s, std::size_t gated_count) {
    const bool higher = model::higher_is_better(c.figure);
    const double lower_bound = 1 - s.threshold, upper_bound = 1 + s.threshold;
    const double p_better =
        higher ? p_ratio_above(c, upper_bound, s.paired) : p_ratio_below(c, lower_bound, s.paired);
    const auto &e = c.estimate;
    c.note.clear();
    c.more_rounds = 0;
    if (!e.interval) {
        c.result = verdict::inconclusive;
        c.note = fmt::format("too few {} for a 95 % interval ({}; at least {})",
                             s.paired ? "rounds" : "repetitions", e.n, s.paired ? 6 : 4);
        return;
    }
    if (c.p_worse_adjusted < s.alpha) {
        c.result = verdict::slower;
    } else if (p_better < s.alpha) {
        c.result = verdict::faster;
    } else if (e.low >= lower_bound && e.high <= upper_bound) {
        c.result = verdict::equivalent;
    } else {
        c.result = verdict::inconclusive;
        const double z = upper_z(s.alpha / 2 / static_cast<double>(c.gated ? gated_count : 1)) +
                         upper_z(0.2);  // decided 4 times in 5 at the rounds estimated
        estimate_rounds(c, s, z);
        if (c.gated && c.p_worse < s.alpha)
            c.note = fmt::format(
                         "past -{:g} % alone but not across the {} gated figures (Holm "
                         "p = {:.3f}); ",
                         s.threshold * 100, gated_count, c.p_worse_adjusted) +
                     c.note;
    }
}

}  // namespace

bool gated_figure(const std::string &figure, bool gate_cpu) {
    if (figure == "bytes_per_sec" || figure == "messages_per_sec" || figure == "latency_p50_ns" ||
        figure == "latency_p99_ns")
        return true;
    return gate_cpu &&
           (figure == "sender_cpu_us_per_message" || figure == "receiver_cpu_us_per_message");
}

std::string verdict_name(verdict v, const std::string &figure) {
    const bool cpu = figure.find("cpu") != std::string::npos;
    switch (v) {
        case verdict::faster: return cpu ? "cheaper" : "faster";
        case verdict::slower: return cpu ? "costlier" : "slower";
        case verdict::equivalent: return "equivalent";
        default: return "inconclusive";
    }
}

double noise_share(double noise) {
    return std::exp(1.96 * noise) - 1;
}

std::size_t least_samples(const gate_settings &s, std::size_t gated_count) {
    const double level = s.alpha / static_cast<double>(std::max<std::size_t>(1, gated_count));
    if (s.paired)  // twice 2^-n at most the level, and an interval (6 pairs)
        return std::max<std::size_t>(6, stats::least_pairs_for(level / 2));
    for (std::size_t n = 4; n < 64; ++n)  // twice P(U = 0) = 2 / C(2n, n)
        if (2 * stats::rank_sum_cdf(n, n)[0] <= level) return n;
    return 64;
}

void judge_changes(std::vector<figure_change> &changes, const gate_settings &s) {
    // One hypothesis per gated figure, except that a case's msg/s is its MB/s divided by one
    // size: the same ratio in every round, so it shares MB/s's test instead of halving alpha.
    std::vector<double> family;
    std::vector<long> member(changes.size(), -1);
    std::map<std::string, long> rate_of_case;
    for (std::size_t i = 0; i < changes.size(); ++i) {
        auto &c = changes[i];
        c.gated = gated_figure(c.figure, s.gate_cpu);
        c.estimate =
            s.paired ? stats::paired_ratio(c.base, c.next) : stats::unpaired_ratio(c.base, c.next);
        c.p_worse = model::higher_is_better(c.figure) ? p_ratio_below(c, 1 - s.threshold, s.paired)
                                                      : p_ratio_above(c, 1 + s.threshold, s.paired);
        if (!c.gated) continue;
        const bool rate = c.figure == "bytes_per_sec" || c.figure == "messages_per_sec";
        if (rate && rate_of_case.count(c.case_key)) {
            member[i] = rate_of_case[c.case_key];
            family[static_cast<std::size_t>(member[i])] =
                std::max(family[static_cast<std::size_t>(member[i])], c.p_worse);
            continue;
        }
        member[i] = static_cast<long>(family.size());
        if (rate) rate_of_case[c.case_key] = member[i];
        family.push_back(c.p_worse);
    }
    const auto adjusted = stats::holm_adjust(family);
    for (std::size_t i = 0; i < changes.size(); ++i)
        changes[i].p_worse_adjusted =
            member[i] >= 0 ? adjusted[static_cast<std::size_t>(member[i])] : changes[i].p_worse;
    for (auto &c : changes) judge_one(c, s, family.size());
}

gate_outcome gate(const std::vector<figure_change> &changes, const gate_settings &s) {
    gate_outcome g;
    std::size_t fewest = SIZE_MAX, most_needed = 0;
    for (const auto &c : changes) {
        if (!c.gated) continue;
        ++g.gated;
        fewest = std::min(fewest, c.estimate.n);
        if (c.result == verdict::slower) ++g.slower;
        if (c.result == verdict::inconclusive) ++g.undecided;
        most_needed = std::max(most_needed, c.more_rounds);
    }
    const char *unit = s.paired ? "rounds" : "repetitions per file";
    const std::size_t least = least_samples(s, g.gated);
    if (g.gated == 0) {
        g.exit_code = exit_inconclusive;
        g.summary = "inconclusive: no gated figure to judge (MB/s, msg/s, latency p50, p99)";
    } else if (g.slower > 0) {
        g.exit_code = exit_gate_failed;
        g.summary = fmt::format(
            "failed: {} of {} gated figures slower by more than {:g} % (95 % "
            "intervals, Holm across the gated figures)",
            g.slower, g.gated, s.threshold * 100);
    } else if (fewest < least) {
        g.exit_code = exit_inconclusive;
        g.summary = fmt::format(
            "inconclusive: {} gated figures need at least {} {} for any "
            "verdict at a family-wise {:g} % (Holm); there are {}",
            g.gated, least, unit, s.alpha * 100, fewest);
    } else if (g.undecided > 0) {
        g.exit_code = exit_inconclusive;
        g.summary = fmt::format("inconclusive: {} of {} gated figures undecided at +/-{:g} %",
                                g.undecided, g.gated, s.threshold * 100) +
                    (most_needed > 0 ? fmt::format("; about {} more {} would decide them at "
                                                   "the noise measured",
                                                   most_needed, unit)
                                     : std::string());
    } else {
        g.summary = fmt::format(
            "passed: all {} gated figures faster or equivalent within "
            "+/-{:g} %",
            g.gated, s.threshold * 100);
    }
    return g;
}

}  // namespace ipcbench::report
