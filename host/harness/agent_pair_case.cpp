#include "harness/agent_pair_case.hpp"

#include <fmt/format.h>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "control/control_channel.hpp"
#include "control/worker_messages.hpp"
#include "harness/orchestrator.hpp"
#include "model/plausibility.hpp"
#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"
#include "report/json_report.hpp"

namespace ipcbench::harness {
namespace {

using nlohmann::json;

// More than the peer client's own run can take beyond the case's watchdog: connecting both
// sides and their set-up (the other agent's handshake, 10 s; opening and connecting, 15 s).
// A fleet's pair gets no longer (cli/fleet_command.cpp: an agent that misses it is marked).
constexpr double answer_margin_s = 30;

struct interrupted_here : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The peer client's answer to one request, within the case's watchdog and the margin.
json await_answer(control::control_channel &channel, const model::case_settings &settings,
                  bool finish_when_interrupted) {
    const std::int64_t deadline =
        platform::now_ns() + model::to_ns(model::watchdog_seconds(settings) + answer_margin_s);
    while (true) {
        auto answer = channel.receive(deadline);
        if (answer) return *answer;
        if (platform::interrupted() && !finish_when_interrupted)
            throw interrupted_here("interrupted here");
        // After Ctrl+C every wait returns at once: the answer is read as it comes, in steps.
        while (platform::interrupted() && platform::now_ns() < deadline) {
            if (!channel.pump()) throw control::channel_closed("closed");
            if (auto buffered = channel.next_buffered()) return *buffered;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (platform::now_ns() >= deadline)
            throw std::runtime_error(
                fmt::format("did not answer within {:g} s (the case's watchdog and {:g} s)",
                            model::watchdog_seconds(settings) + answer_margin_s, answer_margin_s));
    }
}

// The results the peer client sent, as many as asked for and of the case asked for, with the
// client agent's own count of the sessions it ran on the client side.
void read_results(const json &answer, std::vector<report::case_result> &results) {
    const auto reply = control::read_message<control::peer_result_reply>(answer);
    report::run_report sent;
    try {
        sent = report::run_report_from_json(reply.report);
    } catch (const std::exception &e) {
        throw std::runtime_error(std::string("it sent results this ipchost cannot read: ") +
                                 e.what());
    }
    if (sent.results.size() != results.size())
        throw std::runtime_error(fmt::format("it sent {} result(s) for a case that has {}",
                                             sent.results.size(), results.size()));
    const int sessions = agent_sessions_of(answer);
    for (std::size_t k = 0; k < results.size(); ++k) {
        report::case_result &r = sent.results[k];
        if (r.settings.transport_id != results[k].settings.transport_id ||
            r.direction != results[k].direction)
            throw std::runtime_error("it sent the result of another case (" +
                                     r.settings.transport_id + ")");
        (client_sent(r) ? r.sender : r.receiver).agent_sessions = sessions;
        results[k] = std::move(r);
    }
}

void fail(std::vector<report::case_result> &results, report::case_status status,
          const std::string &why) {
    for (auto &r : results) {
        r.status = status;
        r.error = why;
    }
}

// Sends the request on a welcomed session and reads the answer into results; throws.
void run_on(remote::agent_link &link, const model::case_settings &settings,
            const remote::agent_address &server_agent, bool finish_when_interrupted,
            std::vector<report::case_result> &results) {
    control::control_channel channel(link.fd);
    link.seal(channel);
    control::peer_case_request request;
    request.agent = server_agent.address.text();
    request.data_port_first = server_agent.data_port_first;
    request.data_port_last = server_agent.data_port_last;
    request.settings = settings;
    channel.send(control::write_message(request));
    read_results(await_answer(channel, settings, finish_when_interrupted), results);
}

}  // namespace

std::vector<report::case_result> run_case_between_agents(const plugin::transport_info &transport,
                                                         const model::case_settings &settings,
                                                         const remote::agent_address &client_agent,
                                                         const remote::agent_address &server_agent,
                                                         bool finish_when_interrupted) {
    auto results = blank_results(transport, settings);
    remote::agent_link link;
    try {
        link = remote::connect_agent(client_agent, 10, remote::agent_session::peer_client);
    } catch (const std::exception &e) {
        fail(results, report::case_status::failed, e.what());  // names the agent and the cause
        return results;
    }
    const std::string where = "the agent at " + client_agent.address.text() + " (client side)";
    try {
        run_on(link, settings, server_agent, finish_when_interrupted, results);
        model::mark_implausible(results, where);
    } catch (const control::peer_error &e) {
        fail(results, report::case_status::failed, where + " refused the case: " + e.what());
    } catch (const interrupted_here &) {
        fail(results, report::case_status::interrupted,
             "interrupted here; " + where + " ends the case");
    } catch (const control::channel_closed &) {
        fail(results, report::case_status::failed, where + " ended the session before answering");
    } catch (const std::exception &e) {
        fail(results, report::case_status::failed, where + ": " + e.what());
    }
    // The next round may put this agent on either side at once: its session ends there first.
    remote::finish_session(link.fd, 5000);
    platform::close_socket(link.fd);
    return results;
}

}  // namespace ipcbench::harness
