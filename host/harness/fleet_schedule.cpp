#include "harness/fleet_schedule.hpp"

#include <algorithm>
#include <random>

namespace ipcbench::harness {

std::vector<fleet_round> mesh_rounds(std::size_t agents) {
    if (agents < 2) return {};
    // The circle: position 0 stays, the others turn one place a round; with an odd count a
    // rest slot (agents) pairs with whoever rests.
    const std::size_t slots = agents % 2 == 0 ? agents : agents + 1;
    std::vector<std::size_t> circle(slots);
    for (std::size_t i = 0; i < slots; ++i) circle[i] = i;
    std::vector<fleet_round> forward;
    for (std::size_t r = 0; r + 1 < slots; ++r) {
        fleet_round round;
        for (std::size_t i = 0; i < slots / 2; ++i) {
            std::size_t a = circle[i], b = circle[slots - 1 - i];
            if (a >= agents || b >= agents) continue;
            if ((r + i) % 2 == 1) std::swap(a, b);  // each agent sends about half of its pairs
            round.push_back({a, b});
        }
        forward.push_back(std::move(round));
        std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
    }
    std::vector<fleet_round> all = forward;
    for (const auto &round : forward) {
        fleet_round reversed;
        for (const auto &p : round) reversed.push_back({p.destination, p.source});
        all.push_back(std::move(reversed));
    }
    return all;
}

std::vector<fleet_round> star_rounds(std::size_t agents, std::size_t centre) {
    std::vector<fleet_round> rounds;
    for (std::size_t other = 0; other < agents; ++other)
        if (other != centre) rounds.push_back({{centre, other}});
    for (std::size_t other = 0; other < agents; ++other)
        if (other != centre) rounds.push_back({{other, centre}});
    return rounds;
}

std::vector<fleet_round> sample_rounds(std::size_t agents, std::size_t pairs, std::uint64_t seed) {
    std::vector<fleet_pair> all;
    for (std::size_t a = 0; a < agents; ++a)
        for (std::size_t b = 0; b < agents; ++b)
            if (a != b) all.push_back({a, b});
    // Fisher-Yates over mt19937_64 by hand: std::shuffle's draws differ between standard
    // libraries, and a seed must name the same pairs on every build.
    std::mt19937_64 random(seed);
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[random() % i]);
    all.resize(std::min(pairs, all.size()));
    std::vector<fleet_round> rounds;
    for (const auto &p : all) {
        auto fits = [&p](const fleet_round &round) {
            return std::none_of(round.begin(), round.end(), [&p](const fleet_pair &q) {
                return q.source == p.source || q.source == p.destination ||
                       q.destination == p.source || q.destination == p.destination;
            });
        };
        const auto room = std::find_if(rounds.begin(), rounds.end(), fits);
        if (room == rounds.end())
            rounds.push_back({p});
        else
            room->push_back(p);
    }
    return rounds;
}

std::vector<fleet_round> waves_of(const fleet_round &round, std::size_t concurrency) {
    std::vector<fleet_round> waves;
    const std::size_t step = std::max<std::size_t>(concurrency, 1);
    for (std::size_t i = 0; i < round.size(); i += step)
        waves.emplace_back(
            round.begin() + static_cast<std::ptrdiff_t>(i),
            round.begin() + static_cast<std::ptrdiff_t>(std::min(i + step, round.size())));
    return waves;
}

}  // namespace ipcbench::harness
