#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipcbench::harness {

// Who measures against whom in `ipchost fleet`, by index into the agent list: the source runs
// the client side (it sends), the destination the server side. In every round each agent takes
// part in at most one pair, so a round's pairs can run at once without sharing an agent.
struct fleet_pair {
    std::size_t source = 0, destination = 0;
};
using fleet_round = std::vector<fleet_pair>;

// Every ordered pair once: the round-robin tournament (circle method), N-1 rounds for N agents
// (N rounds when N is odd: each round one agent rests), then the same rounds reversed.
std::vector<fleet_round> mesh_rounds(std::size_t agents);
// The centre against every other agent, both ways: one pair a round (the centre is in each).
std::vector<fleet_round> star_rounds(std::size_t agents, std::size_t centre);
// K distinct ordered pairs drawn with the seed (the same seed, the same pairs), packed into
// rounds first-fit so that no agent is in two pairs of a round.
std::vector<fleet_round> sample_rounds(std::size_t agents, std::size_t pairs, std::uint64_t seed);

// A round cut into waves of at most `concurrency` pairs, run one wave after another.
std::vector<fleet_round> waves_of(const fleet_round &round, std::size_t concurrency);

}  // namespace ipcbench::harness
