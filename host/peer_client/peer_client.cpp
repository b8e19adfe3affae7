#include "peer_client/peer_client.hpp"

#include <spdlog/spdlog.h>
#include <optional>

#include "control/control_channel.hpp"
#include "control/worker_messages.hpp"
#include "harness/orchestrator.hpp"
#include "platform/child_process.hpp"
#include "platform/signals.hpp"
#include "platform/system_info.hpp"
#include "plugin/plugin_registry.hpp"
#include "plugin/plugin_search_path.hpp"
#include "remote/agent_client.hpp"
#include "remote/agent_policy.hpp"
#include "remote/agent_protocol.hpp"
#include "report/json_report.hpp"

namespace ipcbench::peer_client {
namespace {

using remote::agent_address;
using remote::default_port;
using remote::parse_host_port;

using nlohmann::json;

// The other agent, as the request names it; its failures to answer read the same.
agent_address server_agent(const control::peer_case_request &request) {
    agent_address agent;
    agent.address = parse_host_port(request.agent, default_port);
    agent.token = request.token;
    agent.data_port_first = static_cast<int>(request.data_port_first);
    agent.data_port_last = static_cast<int>(request.data_port_last);
    agent.hide_unreached_cause = true;
    return agent;
}

class peer_client {
public:
    explicit peer_client(platform::socket_handle fd) : channel_(fd) {}

    int run() {
        for (;;) {
            std::optional<json> request;
            try {
                request = channel_.receive(-1);
            } catch (const control::channel_closed &) {
                return 0;  // the session is over
            }
            if (!request) {
                if (platform::interrupted()) return 130;
                continue;
            }
            if (!control::is(*request, control::message_kind::peer_case)) {
                send_error("a peer client takes only peer_case, got '" +
                           control::type_text(*request) + "'");
                return 2;
            }
            answer(*request);
        }
    }

private:
    void answer(const json &frame) {
        control::peer_case_request request;
        const plugin::transport_info *transport = nullptr;
        try {
            request = control::read_fields_of<control::peer_case_request>(
                frame, control::message_kind::peer_case);
            transport = find_transport(request.settings.transport_id);
        } catch (const std::exception &e) {
            return send_error(e.what());
        }
        const agent_address other = server_agent(request);
        spdlog::info("peer case: {} against the agent at {}", transport->id, other.address.text());
        const std::string started_at = report::utc_now();
        std::vector<report::case_result> results;
        if (std::string skip = harness::reason_to_skip(*transport, request.settings, true);
            !skip.empty()) {
            results = harness::blank_results(*transport, request.settings);
            for (auto &r : results) {
                r.status = report::case_status::skipped;
                r.error = skip;
            }
        } else {
            results = harness::run_case(*transport, request.settings, &other);
        }
        for (const auto &escaped : platform::kill_escaped_children())
            spdlog::warn("a process the case's plugin left behind, {}, was killed", escaped);
        report::run_report out;
        out.environment = platform::read_system_info();
        out.started_at = started_at;
        out.command_line = "ipchost serve (peer client)";
        out.defaults = request.settings;
        out.peer = other.address.text();
        out.results = std::move(results);
        channel_.send(control::write_message(control::peer_result_reply{report::to_json(out)}));
    }

    // The transport by id, from this host's own plugin folders only, and one that crosses hosts.
    const plugin::transport_info *find_transport(const std::string &id) {
        if (!scanned_) {
            registry_.scan(plugin::plugin_search_path({}));
            scanned_ = true;
        }
        const plugin::transport_info *found = registry_.find(id);
        if (found == nullptr)
            throw std::runtime_error("no transport '" + id +
                                     "' on this agent (ipchost --list there shows its own)");
        remote::check_agent_transport(*found);
        return found;
    }

    void send_error(const std::string &why) {
        control::error_reply error;
        error.stage = "peer_case";
        error.message = why;
        try {
            channel_.send(control::write_message(error));
        } catch (const std::exception &e) {
            spdlog::debug("peer client: the error did not go out: {}", e.what());
        }
    }

    control::control_channel channel_;
    plugin::plugin_registry registry_;
    bool scanned_ = false;
};

}  // namespace

int peer_client_main(platform::socket_handle control_fd) {
    platform::ignore_sigpipe();
    platform::become_subreaper();  // what a case's plugin leaves running comes back here
    try {
        return peer_client(control_fd).run();
    } catch (const std::exception &e) {
        spdlog::error("peer client: {}", e.what());
        return 1;
    }
}

}  // namespace ipcbench::peer_client
