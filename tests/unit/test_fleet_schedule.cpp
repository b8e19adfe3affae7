// The fleet's schedules: which agent measures against which, in rounds that share no agent.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "harness/fleet_schedule.hpp"

using namespace ipcbench::harness;

namespace {

// Every ordered pair of the schedule, checking on the way that no round has an agent twice and
// that no pair is an agent with itself.
std::multiset<std::pair<std::size_t, std::size_t>> pairs_checked(
    const std::vector<fleet_round> &rounds, std::size_t agents) {
    std::multiset<std::pair<std::size_t, std::size_t>> out;
    for (const auto &round : rounds) {
        std::set<std::size_t> seen;
        for (const auto &p : round) {
            CHECK(p.source < agents);
            CHECK(p.destination < agents);
            CHECK(p.source != p.destination);
            CHECK(seen.insert(p.source).second);
            CHECK(seen.insert(p.destination).second);
            out.insert({p.source, p.destination});
        }
    }
    return out;
}

}  // namespace

TEST_CASE("a mesh is every ordered pair once, in 2(N-1) rounds (2N when N is odd)", "[fleet]") {
    for (std::size_t n : {2, 3, 4, 5, 6, 7, 10}) {
        INFO(n);
        const auto rounds = mesh_rounds(n);
        CHECK(rounds.size() == (n % 2 == 0 ? 2 * (n - 1) : 2 * n));
        const auto pairs = pairs_checked(rounds, n);
        CHECK(pairs.size() == n * (n - 1));
        CHECK(std::set<std::pair<std::size_t, std::size_t>>(pairs.begin(), pairs.end()).size() ==
              n * (n - 1));
        // An even fleet keeps every agent busy every round.
        if (n % 2 == 0)
            for (const auto &r : rounds) CHECK(r.size() == n / 2);
    }
    CHECK(mesh_rounds(1).empty());
}

TEST_CASE("a star runs its centre against every other agent, both ways", "[fleet]") {
    const auto rounds = star_rounds(5, 2);
    CHECK(rounds.size() == 8);
    const auto pairs = pairs_checked(rounds, 5);
    for (std::size_t other : {0, 1, 3, 4}) {
        CHECK(pairs.count({2, other}) == 1);
        CHECK(pairs.count({other, 2}) == 1);
    }
    CHECK(pairs.size() == 8);
}

TEST_CASE("a sample draws K distinct pairs, the same for the same seed", "[fleet]") {
    const auto a = pairs_checked(sample_rounds(6, 7, 42), 6);
    const auto b = pairs_checked(sample_rounds(6, 7, 42), 6);
    const auto c = pairs_checked(sample_rounds(6, 7, 43), 6);
    CHECK(a.size() == 7);
    CHECK(std::set<std::pair<std::size_t, std::size_t>>(a.begin(), a.end()).size() == 7);
    CHECK(a == b);
    CHECK(a != c);
    CHECK(pairs_checked(sample_rounds(3, 100, 1), 3).size() == 6);  // no more than there are
}

TEST_CASE("a round splits into waves of at most C pairs, none lost", "[fleet]") {
    const fleet_round round = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}};
    const auto waves = waves_of(round, 2);
    REQUIRE(waves.size() == 3);
    CHECK(waves[0].size() == 2);
    CHECK(waves[2].size() == 1);
    CHECK(waves[2][0].source == 8);
    CHECK(waves_of(round, 10).size() == 1);
    CHECK(waves_of(round, 0).size() == 5);
}
