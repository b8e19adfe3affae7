// `ipchost fleet`: every pair of a list of agents, agent to agent, in rounds.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "cli/commands.hpp"
#include "cli/fleet_agents.hpp"
#include "cli/report_output.hpp"
#include "cli/transport_selection.hpp"
#include "cli/usage_error.hpp"
#include "harness/agent_pair_case.hpp"
#include "harness/fleet_schedule.hpp"
#include "harness/orchestrator.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "remote/agent_protocol.hpp"
#include "remote/agent_server.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

using harness::fleet_pair;
using harness::fleet_round;

// The schedule the options ask for, by index into the agents.
std::vector<fleet_round> schedule_of(const fleet_options &f,
                                     const std::vector<fleet_agent> &agents) {
    if (f.sample > 0) return harness::sample_rounds(agents.size(), f.sample, f.seed);
    if (f.pairs == "mesh") return harness::mesh_rounds(agents.size());
    const std::string centre = f.pairs.substr(5);
    std::vector<std::size_t> named;
    for (std::size_t i = 0; i < agents.size(); ++i) {
        bool is = agents[i].name() == centre;
        for (const auto &[key, value] : agents[i].labels) is = is || value == centre;
        if (is) named.push_back(i);
    }
    if (named.size() == 1) return harness::star_rounds(agents.size(), named.front());
    if (named.empty())
        throw usage_error("--pairs star=" + text::terminal_text(centre) +
                          ": no agent has that address or a label of that value");
    std::string which;
    for (std::size_t i : named) which += (which.empty() ? "" : ", ") + agents[i].name();
    throw usage_error("--pairs star=" + text::terminal_text(centre) + " names " +
                      std::to_string(named.size()) + " agents (" + which +
                      "): a centre must be one; name it by address");
}

// The agents that missed a pair's deadline: an agent holding the token that answers the roll
// call and the handshake and then nothing costs each of its pairs the whole deadline (a 50-agent
// mesh would wait over an hour on one); once it missed one, its remaining pairs fail at once,
// naming the pair it missed. Shared by the wave's threads.
class missed_deadlines {
public:
    // The agent a failed row blames for not answering in time: the one named last before "did
    // not answer" ("the agent at A (client side): timed out: the receiver (the agent at B) did
    // not answer 'hello'" blames B), or the one no agent answered at; nullptr for another
    // failure (a refusal, a wrong token, a crash), which marks no one.
    static const fleet_agent *blamed(const std::string &error, const fleet_agent &source,
                                     const fleet_agent &destination) {
        std::size_t until = error.find("did not answer");
        if (until == std::string::npos) until = error.find("no ipchost agent answered at");
        if (until == std::string::npos) return nullptr;
        const fleet_agent *who = nullptr;
        std::size_t last = 0;
        for (const fleet_agent *a : {&source, &destination}) {
            for (const std::string &named :
                 {"the agent at " + a->name(), " answered at " + a->name()}) {
                const std::size_t at = error.rfind(named, until);
                if (at != std::string::npos && (who == nullptr || at >= last)) {
                    who = a;
                    last = at;
                }
            }
        }
        return who;
    }
    void mark(const fleet_agent &agent, const std::string &pair, int round) {
        const std::lock_guard<std::mutex> lock(mutex_);
        why_.emplace(agent.name(), fmt::format("{} in round {}", pair, round));
    }
    std::string reason(const fleet_agent &agent) const {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = why_.find(agent.name());
        return it == why_.end() ? "" : it->second;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::string> why_;
};

// The rows of a pair not run because one of its agents missed a deadline before ("" if none).
std::string marked_reason(const missed_deadlines &missed, const fleet_agent &source,
                          const fleet_agent &destination) {
    for (const fleet_agent *a : {&source, &destination})
        if (std::string why = missed.reason(*a); !why.empty())
            return "not run: the agent at " + a->name() + " missed a pair's deadline (" + why +
                   "), so its remaining pairs fail at once";
    return "";
}

// Every case of the command line between one pair, one after another; each row says where.
std::vector<report::case_result> run_pair(const std::vector<planned_case> &cases,
                                          const fleet_agent &source, const fleet_agent &destination,
                                          int round, int concurrent, missed_deadlines &missed) {
    std::vector<report::case_result> rows;
    for (const auto &c : cases) {
        std::vector<report::case_result> results;
        if (std::string marked = marked_reason(missed, source, destination); !marked.empty()) {
            results = harness::blank_results(*c.transport, c.settings);
            for (auto &r : results) {
                r.status = report::case_status::failed;
                r.error = marked;
            }
        } else if (std::string skip = harness::reason_to_skip(*c.transport, c.settings, true);
                   !skip.empty()) {
            results = harness::blank_results(*c.transport, c.settings);
            for (auto &r : results) {
                r.status = report::case_status::skipped;
                r.error = skip;
            }
        } else {
            results = harness::run_case_between_agents(*c.transport, c.settings, source.agent,
                                                       destination.agent, true);
            for (const auto &r : results)
                if (r.status == report::case_status::failed)
                    if (const fleet_agent *late =
                            missed_deadlines::blamed(r.error, source, destination))
                        missed.mark(*late, source.name() + " -> " + destination.name(), round);
        }
        for (auto &r : results) {
            r.fleet = model::fleet_place{source.name(), destination.name(),
                                         source.labels, destination.labels,
                                         round,         concurrent};
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

// Runs body(0..n-1) at once, a thread each, and returns once all are done. No thread is left
// joinable while an exception unwinds (that is std::terminate): one that cannot be started
// waits for those that were, and a body's exception is thrown here after every join.
void on_threads(std::size_t n, const std::function<void(std::size_t)> &body) {
    std::vector<std::exception_ptr> failures(n);
    std::vector<std::thread> threads;
    try {
        for (std::size_t k = 0; k < n; ++k)
            threads.emplace_back([&, k] {
                try {
                    body(k);
                } catch (...) {
                    failures[k] = std::current_exception();
                }
            });
    } catch (...) {
        for (auto &t : threads) t.join();
        throw;
    }
    for (auto &t : threads) t.join();
    for (const auto &f : failures)
        if (f) std::rethrow_exception(f);
}

// One wave: its pairs at once, each on a thread of its own; the rows in the wave's order.
std::vector<report::case_result> run_wave(const fleet_round &wave,
                                          const std::vector<planned_case> &cases,
                                          const std::vector<fleet_agent> &agents, int round,
                                          missed_deadlines &missed) {
    std::vector<std::vector<report::case_result>> rows(wave.size());
    on_threads(wave.size(), [&](std::size_t k) {
        rows[k] = run_pair(cases, agents[wave[k].source], agents[wave[k].destination], round,
                           static_cast<int>(wave.size()), missed);
    });
    std::vector<report::case_result> out;
    for (auto &pair_rows : rows)
        for (auto &r : pair_rows) out.push_back(std::move(r));
    return out;
}

// Labels that name one machine (node=, host=, name=, id=): two agents that claim the same one are
// named, since a row's label then tells neither apart (an agent that lies about where it runs,
// or two agents on one node). Other labels (zone=a) are shared on purpose.
void name_shared_identities(const std::vector<fleet_agent> &agents) {
    std::map<std::string, std::vector<std::string>> claims;
    for (const auto &a : agents)
        for (const auto &[key, value] : a.labels)
            if (key == "node" || key == "host" || key == "name" || key == "id")
                claims[key + "=" + value].push_back(a.name());
    for (const auto &[label, who] : claims)
        if (who.size() > 1)
            spdlog::warn(
                "fleet: {} agents claim {}: {}; their rows tell them apart by address only",
                who.size(), text::terminal_text(label), fmt::format("{}", fmt::join(who, ", ")));
}

// The roll call before the first round: every agent at once is asked who it is. Its labels
// (serve --label: the node a DaemonSet pod runs on) join the list's, which win on a clash; an
// agent that does not answer is named with the cause, and its pairs still run (and fail with
// it) so that every pair of the schedule has its row.
void roll_call(std::vector<fleet_agent> &agents) {
    std::vector<std::string> problems(agents.size());
    on_threads(agents.size(), [&](std::size_t i) {
        try {
            const auto who = remote::roll_call(agents[i].agent, remote::max_handshake_s);
            for (const auto &[key, value] : who.labels) agents[i].labels.emplace(key, value);
            if (!who.dropped_labels.empty())
                spdlog::warn(
                    "fleet: the agent at {} sent labels that break the rule, left "
                    "out: {}",
                    agents[i].name(), who.dropped_labels);
        } catch (const std::exception &e) {
            problems[i] = e.what();
        }
    });
    std::size_t answered = 0;
    for (std::size_t i = 0; i < agents.size(); ++i) {
        if (problems[i].empty())
            ++answered;
        else
            spdlog::warn("fleet: roll call: {}: {}", agents[i].name(), problems[i]);
    }
    spdlog::info("fleet: roll call: {} of {} agents answered", answered, agents.size());
    name_shared_identities(agents);
}

std::size_t pairs_in(const std::vector<fleet_round> &rounds) {
    std::size_t n = 0;
    for (const auto &r : rounds) n += r.size();
    return n;
}

}  // namespace

int fleet_command(const command_line &cmd, const plugin::plugin_registry &registry, int argc,
                  const char *const argv[]) {
    auto agents = fleet_agents(cmd.fleet.agents, cmd.fleet.agents_file, cmd.serve.token);
    for (auto &a : agents) {
        a.agent.data_port_first = cmd.fleet.data_port_first;
        a.agent.data_port_last = cmd.fleet.data_port_last;
    }
    auto selected = select_transports(cmd, registry);
    if (cmd.plugins.empty())  // all that can run between agents, not a skipped row for each other
        selected.erase(std::remove_if(selected.begin(), selected.end(),
                                      [](const auto *t) { return !t->has(IPCB_CAP_CROSS_HOST); }),
                       selected.end());
    const auto cases = planned_cases(cmd, selected, assign_options(cmd, selected));
    for (const auto &c : cases)
        if (c.settings.sender_impl != "native" || c.settings.receiver_impl != "native")
            throw usage_error("ipchost fleet runs the agents' own workers; drop --impl");
    check_output_file(cmd.output);
    roll_call(agents);  // before the schedule: --pairs star= may name a label an agent told
    const auto rounds = schedule_of(cmd.fleet, agents);
    report::run_report report = start_report(cmd, argc, argv);
    platform::install_interrupt_handlers();
    const std::size_t total = pairs_in(rounds);
    spdlog::info(
        "fleet: {} agents, {} pairs in {} rounds, {} case(s) a pair, up to {} pair(s) at once",
        agents.size(), total, rounds.size(), cases.size(), cmd.fleet.concurrency);
    const std::int64_t start = platform::now_ns();
    std::size_t done = 0, rounds_done = 0;
    bool failed = false;
    missed_deadlines missed;
    for (std::size_t r = 0; r < rounds.size() && !platform::interrupted(); ++r) {
        if (r > 0 && cmd.fleet.gap_s > 0)
            std::this_thread::sleep_for(std::chrono::duration<double>(cmd.fleet.gap_s));
        for (const auto &wave : harness::waves_of(rounds[r], cmd.fleet.concurrency)) {
            for (auto &row : run_wave(wave, cases, agents, static_cast<int>(r + 1), missed)) {
                if (row.status == report::case_status::failed) {
                    failed = true;
                    spdlog::error("{} -> {}: {}", text::terminal_text(row.fleet->source),
                                  text::terminal_text(row.fleet->destination),
                                  text::terminal_text(row.error));
                }
                report.results.push_back(std::move(row));
            }
            done += wave.size();
        }
        ++rounds_done;
        const double elapsed = (platform::now_ns() - start) / 1e9;
        if (!cmd.quiet)
            spdlog::info(
                "fleet: round {} of {} done, {} of {} pairs, {:.0f} s elapsed, about {:.0f} s left",
                rounds_done, rounds.size(), done, total, elapsed,
                elapsed / static_cast<double>(done) * static_cast<double>(total - done));
    }
    for (const auto &a : agents) remote::say_goodbye(a.agent);
    write_report(report, cmd.format, cmd.output, cmd.layout);
    if (platform::interrupted()) {
        spdlog::warn("interrupted after round {} of {}: the {} rows measured are kept", rounds_done,
                     rounds.size(), report.results.size());
        return 130;
    }
    return failed ? 1 : 0;
}

}  // namespace ipcbench::cli
