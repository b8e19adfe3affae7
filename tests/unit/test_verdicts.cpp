// The rules by which ab and compare judge a change (report/verdict_rules.hpp) and the statistics
// under them (stats/ratio_interval.hpp, stats/change_points.hpp), by value on synthetic samples.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "report/verdict_rules.hpp"
#include "stats/change_points.hpp"
#include "stats/ratio_interval.hpp"

using namespace ipcbench;

namespace {

// Round i's base and new: base 100 (times a drift both share), new = base * ratio * exp(d_i).
struct rounds {
    std::vector<double> base, next;
};
rounds paired(double ratio, const std::vector<double> &scatter) {
    rounds r;
    for (std::size_t i = 0; i < scatter.size(); ++i) {
        const double drift = 1 + 0.3 * static_cast<double>(i % 3);  // the machine's minute
        r.base.push_back(100 * drift);
        r.next.push_back(100 * drift * ratio * std::exp(scatter[i]));
    }
    return r;
}

report::figure_change change(const std::string &key, const std::string &figure, const rounds &r) {
    report::figure_change c;
    c.case_key = key;
    c.figure = figure;
    c.base = r.base;
    c.next = r.next;
    return c;
}

const std::vector<double> small_scatter = {0.01,  -0.01,  0.005, -0.005, 0.002, -0.002,
                                           0.008, -0.008, 0.004, -0.004, 0.0,   0.001};

}  // namespace

TEST_CASE("signed-rank distribution: the exact counts of the tables", "[statistics][verdicts]") {
    const auto six = stats::signed_rank_cdf(6);
    REQUIRE(six.size() == 22);
    CHECK(six[0] == Approx(1.0 / 64));
    CHECK(six[2] == Approx(3.0 / 64));  // {}, {1}, {2}
    CHECK(six.back() == Approx(1.0));
    const auto ten = stats::signed_rank_cdf(10);  // the table's two-sided 5 % value is T = 8
    CHECK(ten[8] == Approx(25.0 / 1024));
    CHECK(ten[9] == Approx(33.0 / 1024));
    // Mann-Whitney: U = 0 of 5 and 5 is 1 / C(10, 5).
    CHECK(stats::rank_sum_cdf(5, 5)[0] == Approx(1.0 / 252));
    CHECK(stats::rank_sum_cdf(5, 5)[2] == Approx(4.0 / 252));
    CHECK(stats::rank_sum_cdf(4, 5)[2] == Approx(4.0 / 126));
    CHECK(stats::least_pairs_for(0.025) == 6);
    CHECK(stats::least_pairs_for(0.00625) == 8);
}

TEST_CASE("paired ratio: the interval and the one-sided tests agree, and drift cancels",
          "[statistics][verdicts]") {
    const auto r = paired(0.8, small_scatter);
    const auto e = stats::paired_ratio(r.base, r.next);
    REQUIRE(e.interval);
    CHECK(e.n == 12);
    CHECK(e.ratio == Approx(0.8).epsilon(0.01));
    CHECK(e.low < 0.8);
    CHECK(e.high > 0.8);
    CHECK(e.high < 0.82);  // the base's drift of 30 % is in both sides of every pair
    // The interval lies wholly below 0.85 and not below 0.79; twice the test's p says the same.
    CHECK(2 * stats::paired_p_below(r.base, r.next, 0.85) <= 0.05);
    CHECK(2 * stats::paired_p_below(r.base, r.next, 0.79) > 0.05);
    // Too few pairs for a 95 % interval: none is made up.
    const auto five = paired(0.8, {0.01, -0.01, 0.0, 0.02, -0.02});
    CHECK_FALSE(stats::paired_ratio(five.base, five.next).interval);
    // Random data: every interval bound agrees with the test at it (two computations, one rule).
    std::mt19937 random(7);
    std::normal_distribution<double> noise(0, 0.1);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> d(10);
        for (auto &x : d) x = noise(random);
        const auto t = paired(1.0, d);
        const auto est = stats::paired_ratio(t.base, t.next);
        CHECK(2 * stats::paired_p_below(t.base, t.next, est.high * 1.0001) <= 0.05);
        CHECK(2 * stats::paired_p_below(t.base, t.next, est.high * 0.999) > 0.05);
    }
}

TEST_CASE("unpaired ratio: a Hodges-Lehmann shift with its Mann-Whitney interval",
          "[statistics][verdicts]") {
    const std::vector<double> base = {100, 101, 102, 103, 104};
    std::vector<double> half;
    for (double b : base) half.push_back(b / 2);
    const auto e = stats::unpaired_ratio(base, half);
    REQUIRE(e.interval);
    CHECK(e.ratio == Approx(0.5).epsilon(0.001));
    CHECK(e.low > 0.48);
    CHECK(e.high < 0.52);
    CHECK(stats::unpaired_p_below(base, half, 0.6) == Approx(1.0 / 252));
    const std::vector<double> three = {100, 101, 102};
    CHECK_FALSE(stats::unpaired_ratio(three, three).interval);  // 3 and 3: no 95 % interval
}

TEST_CASE("Holm: each p raised by its rank, monotone, the family held at alpha",
          "[statistics][verdicts]") {
    const auto a = stats::holm_adjust({0.01, 0.04, 0.03, 0.005});
    CHECK(a[3] == Approx(0.02));  // 4 x 0.005
    CHECK(a[0] == Approx(0.03));  // 3 x 0.01
    CHECK(a[2] == Approx(0.06));  // 2 x 0.03
    CHECK(a[1] == Approx(0.06));  // 1 x 0.04, raised to the one before it
}

TEST_CASE(
    "verdicts: an interval straddling the threshold is inconclusive, with the rounds to "
    "decide it",
    "[verdicts]") {
    report::gate_settings s;  // 5 %, paired
    // The same figure three ways: clearly slower, clearly the same, and on the threshold.
    std::vector<double> wide(12);
    for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = (i % 2 ? 0.06 : -0.06);
    std::vector<report::figure_change> changes = {
        change("slow", "bytes_per_sec", paired(0.8, small_scatter)),
        change("same", "bytes_per_sec", paired(1.0, small_scatter)),
        change("edge", "bytes_per_sec", paired(0.95, wide))};
    report::judge_changes(changes, s);
    CHECK(changes[0].result == report::verdict::slower);
    CHECK(changes[1].result == report::verdict::equivalent);
    CHECK(changes[2].result == report::verdict::inconclusive);
    CHECK(changes[2].estimate.low < 0.95);
    CHECK(changes[2].estimate.high > 0.95);
    CHECK_THAT(changes[2].note, Catch::Contains("threshold") || Catch::Contains("more rounds"));
    const auto g = report::gate(changes, s);
    CHECK(g.exit_code == report::exit_gate_failed);
    CHECK(g.slower == 1);
    // Without the slow case the gate cannot say: inconclusive, its own exit code, and why.
    changes.erase(changes.begin());
    report::judge_changes(changes, s);
    const auto open = report::gate(changes, s);
    CHECK(open.exit_code == report::exit_inconclusive);
    CHECK_THAT(open.summary, Catch::Contains("1 of 2 gated figures undecided"));
    // A latency figure's bad side is up: 20 % more p99 is slower, 20 % less is faster.
    std::vector<report::figure_change> latency = {
        change("up", "latency_p99_ns", paired(1.2, small_scatter)),
        change("down", "latency_p99_ns", paired(0.8, small_scatter))};
    report::judge_changes(latency, s);
    CHECK(latency[0].result == report::verdict::slower);
    CHECK(latency[1].result == report::verdict::faster);
}

TEST_CASE(
    "the gate: a faster build with more CPU % passes, CPU gated as time per message only "
    "when asked",
    "[verdicts]") {
    report::gate_settings s;
    std::vector<report::figure_change> changes = {
        change("c", "bytes_per_sec", paired(3.0, small_scatter)),
        change("c", "messages_per_sec", paired(3.0, small_scatter)),
        change("c", "sender_cpu_percent", paired(2.5, small_scatter)),  // busier: more CPU %
        change("c", "sender_cpu_us_per_message", paired(1.2, small_scatter))};
    report::judge_changes(changes, s);
    CHECK(changes[2].result == report::verdict::slower);  // "costlier", and not gated
    CHECK_FALSE(changes[2].gated);
    CHECK(report::verdict_name(changes[2].result, changes[2].figure) == "costlier");
    auto g = report::gate(changes, s);
    CHECK(g.exit_code == 0);
    CHECK(g.gated == 2);
    // Asked to gate CPU: 20 % more CPU time per message fails it; CPU % never counts.
    s.gate_cpu = true;
    report::judge_changes(changes, s);
    CHECK(changes[3].gated);
    CHECK_FALSE(changes[2].gated);
    g = report::gate(changes, s);
    CHECK(g.exit_code == report::exit_gate_failed);
    CHECK(g.gated == 3);
}

TEST_CASE("the gate: too few samples cannot pass, and Holm holds many figures together",
          "[verdicts]") {
    report::gate_settings s;
    s.paired = false;  // two files
    const std::vector<double> one = {100};
    report::figure_change c;
    c.case_key = "c";
    c.figure = "bytes_per_sec";
    c.base = one;
    c.next = {98};
    std::vector<report::figure_change> single = {c};
    report::judge_changes(single, s);
    const auto g = report::gate(single, s);
    CHECK(g.exit_code == report::exit_inconclusive);  // not 0: it could not test anything
    CHECK_THAT(g.summary, Catch::Contains("need at least") && Catch::Contains("there are 1"));
    CHECK(report::least_samples(s, 1) == 4);
    // Paired, 8 figures: the same evidence that decides one figure alone is not enough for a
    // family of 8 (Holm), so a borderline figure is inconclusive there.
    report::gate_settings p;
    const std::vector<double> six = {-0.01, 0.01, 0.0, 0.005, -0.005, 0.002};
    std::vector<report::figure_change> alone = {change("a", "latency_p50_ns", paired(1.2, six))};
    report::judge_changes(alone, p);
    CHECK(alone[0].result == report::verdict::slower);
    std::vector<report::figure_change> family;
    for (int k = 0; k < 8; ++k)
        family.push_back(change("case" + std::to_string(k), "latency_p50_ns", paired(1.2, six)));
    report::judge_changes(family, p);
    CHECK(family[0].p_worse == Approx(alone[0].p_worse));
    CHECK(family[0].p_worse_adjusted == Approx(8 * alone[0].p_worse));
    CHECK(family[0].result == report::verdict::inconclusive);
    CHECK(report::least_samples(p, 8) == 9);  // 2 * 2^-9 <= 0.05 / 8
    // A case's msg/s is its MB/s over one size: one hypothesis, not two.
    std::vector<report::figure_change> rate = {change("r", "bytes_per_sec", paired(0.8, six)),
                                               change("r", "messages_per_sec", paired(0.8, six))};
    report::judge_changes(rate, p);
    CHECK(rate[0].p_worse_adjusted == Approx(rate[0].p_worse));
    CHECK(rate[1].result == report::verdict::slower);
}

TEST_CASE("change points: a shift found where it happened, none in noise alone",
          "[statistics][verdicts]") {
    std::mt19937 random(3);
    std::normal_distribution<double> noise(0, 0.02);
    std::vector<double> shifted, flat;
    for (int i = 0; i < 24; ++i) {
        shifted.push_back((i < 14 ? 0.0 : -0.3) + noise(random));  // 26 % slower from night 14
        flat.push_back(noise(random));
    }
    const auto found = stats::e_divisive(shifted);
    REQUIRE(found.size() == 1);
    CHECK(found[0].index == 14);
    CHECK(found[0].p_value < 0.05);
    CHECK(found[0].after - found[0].before == Approx(-0.3).margin(0.03));
    CHECK(stats::e_divisive(flat).empty());
    // One odd night is no change point: a segment needs 3 runs a side.
    std::vector<double> spike(20, 0.0);
    for (std::size_t i = 0; i < spike.size(); ++i) spike[i] = noise(random);
    spike[10] = -1.0;
    CHECK(stats::e_divisive(spike).empty());
    // Two shifts, both found.
    std::vector<double> two;
    for (int i = 0; i < 30; ++i) two.push_back((i < 10 ? 0.0 : i < 20 ? 0.4 : 0.1) + noise(random));
    const auto both = stats::e_divisive(two);
    REQUIRE(both.size() == 2);
    CHECK(both[0].index == 10);
    CHECK(both[1].index == 20);
}

TEST_CASE(
    "auto rounds: a large change in heavy noise asks for more rounds, an A/A in the same "
    "noise is answered with the noise",
    "[verdicts]") {
    report::gate_settings s;
    std::vector<double> heavy(8);  // +/-0.5 on the log ratio: about +/-150 % a round
    for (std::size_t i = 0; i < heavy.size(); ++i) heavy[i] = (i % 2 ? 0.5 : -0.5);
    std::vector<report::figure_change> slow = {change("c", "bytes_per_sec", paired(0.75, heavy))};
    report::judge_changes(slow, s);
    REQUIRE(slow[0].result == report::verdict::inconclusive);
    CHECK(slow[0].more_rounds > 0);  // 25 % past a 5 % threshold: rounds decide it
    CHECK(slow[0].more_rounds < s.most_rounds);
    CHECK_THAT(slow[0].note, Catch::Contains("more rounds would decide it"));
    std::vector<report::figure_change> same = {change("c", "bytes_per_sec", paired(1.0, heavy))};
    report::judge_changes(same, s);
    REQUIRE(same[0].result == report::verdict::inconclusive);
    CHECK(same[0].more_rounds == 0);  // +/-5 % cannot be resolved at this noise: stop, say so
    CHECK_THAT(same[0].note, Catch::Contains("cannot detect 5 % on this machine now"));
}
