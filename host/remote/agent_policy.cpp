#include "remote/agent_policy.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "control/worker_messages.hpp"
#include "model/case_settings.hpp"
#include "model/job.hpp"
#include "platform/stream_socket.hpp"
#include "remote/tcp_endpoint.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::remote {

using nlohmann::json;

void check_agent_transport(const plugin::transport_info &transport) {
    if (!transport.has(IPCB_CAP_CROSS_HOST))
        throw std::runtime_error("transport " + transport.id +
                                 " cannot cross hosts; an agent runs only transports with the "
                                 "cross-host capability (ipchost --list shows them)");
}

void check_agent_address(const std::string &address, bool bind) {
    const std::string shown = text::printable(address, 80);
    const auto colon = address.rfind(':');
    const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
    const bool digits = !port.empty() && port.size() <= 5 &&
                        port.find_first_not_of("0123456789") == std::string::npos;
    const long number = digits ? std::stol(port) : -1;
    if (number < (bind ? 0 : 1) || number > 65535)
        throw std::runtime_error("address '" + shown + "' refused: it needs a port " +
                                 (bind ? "0" : "1") + "-65535");
    try {
        parse_host_port(address.substr(0, colon) + ":1", 0);  // the host: numeric, v4 or [v6]
    } catch (const std::exception &) {
        throw std::runtime_error("address '" + shown +
                                 "' refused: an agent binds and connects only to numeric "
                                 "network addresses HOST:PORT or [V6]:PORT");
    }
}

namespace {

// The options of the built-in cross-host transports that name no address, port, path or
// device: buffer sizes and switches. socket.tcp's `bind` is the one left out.
const std::map<std::string, std::set<std::string>> &allow_lists() {
    static const std::map<std::string, std::set<std::string>> lists = {
        {"socket.tcp", {"nodelay", "sndbuf", "rcvbuf", "zerocopy"}},
        {"udp.inet", {"sndbuf", "rcvbuf"}},
    };
    return lists;
}

// "" when host:port is where this role may go.
std::string refuse_address(const std::string &address, bool creator, const address_policy &policy) {
    host_port where;
    try {
        check_agent_address(address, creator);
        const auto colon = address.rfind(':');
        where = parse_host_port(address.substr(0, colon) + ":1", 0);
        where.port = std::stoi(address.substr(colon + 1));
    } catch (const std::exception &e) {
        return e.what();
    }
    const std::string host = platform::canonical_address(where.host);
    const std::string shown = text::printable(address, 80);
    const auto &rules = policy.operator_rules;
    if (creator) {
        if (host != policy.local_host)
            return fmt::format(
                "address '{}' refused: a creator listens only on the address the client "
                "reached this agent by ({})",
                shown, policy.local_host);
        if (where.port != 0 && (where.port < rules.first_port || where.port > rules.last_port))
            return fmt::format(
                "port {} refused: this agent's endpoints listen on ports {}-{} (the operator "
                "sets them with ipchost serve --allow-ports)",
                where.port, rules.first_port, rules.last_port);
        return "";
    }
    if (host == policy.client_host) return "";
    for (const auto &allowed : rules.connect_hosts)
        if (host == allowed) return "";
    return fmt::format(
        "address '{}' refused: a connector reaches only the client's own address ({}) or a host "
        "the operator allows with ipchost serve --allow-connect",
        shown, policy.client_host);
}

std::string refuse_options(const std::string &transport,
                           const std::map<std::string, std::string> &options,
                           const address_policy &policy) {
    static const std::set<std::string> none;
    const auto list = allow_lists().find(transport);
    const auto &builtin = list == allow_lists().end() ? none : list->second;
    const auto extra = policy.operator_rules.extra_options.find(transport);
    for (const auto &[key, value] : options) {
        const bool allowed =
            builtin.count(key) > 0 ||
            (extra != policy.operator_rules.extra_options.end() && extra->second.count(key) > 0);
        if (value.size() > 256)
            return fmt::format("option '{}' must be a string of at most 256 characters",
                               text::printable(key, 64));
        if (allowed) continue;
        std::string taken;
        for (const auto &k : builtin) taken += (taken.empty() ? "" : ", ") + k;
        return fmt::format(
            "option '{}' of {} is not taken from a client: an agent decides addresses, ports, "
            "paths and devices itself, and takes only {} for this transport (the operator may "
            "allow more with ipchost serve --allow-option {}:KEY)",
            text::printable(key, 64), text::printable(transport, 80),
            taken.empty() ? std::string("no option") : taken, text::printable(transport, 80));
    }
    return "";
}

// "" when one worker's buffers for the case fit the agent's memory budget.
std::string over_agent_budget(const model::case_settings &c, const address_policy &policy) {
    const std::uint64_t budget = policy.operator_rules.memory_budget
                                     ? policy.operator_rules.memory_budget
                                     : model::default_agent_memory_budget;
    return model::over_memory_budget(c, budget,
                                     "ask the agent's operator to raise ipchost serve "
                                     "--memory-budget");
}

// "" when the agent at `address` (checked numeric) is one the operator lets peer cases reach.
std::string refuse_peer_target(const std::string &address, const address_policy &policy) {
    const std::string host = platform::canonical_address(
        parse_host_port(address.substr(0, address.rfind(':')) + ":1", 0).host);
    const address_scope scope = scope_of(host);
    if (scope != address_scope::ordinary && scope != address_scope::loopback)
        return fmt::format("peer_case: {} is {}: no agent is there; refused", host,
                           describe(scope));
    const auto &rules = policy.operator_rules;
    for (const auto &allowed : rules.connect_hosts)
        if (host == allowed) return "";
    for (const auto &network : rules.peer_networks)
        if (network.contains(host)) return "";
    return fmt::format(
        "peer_case: this agent runs cases only against the agents its operator allows (ipchost "
        "serve --allow-peer ADDR[/BITS]); {} is not among them",
        host);
}

}  // namespace

const std::set<std::string> &wire_options(const std::string &transport_id) {
    static const std::set<std::string> none;
    const auto it = allow_lists().find(transport_id);
    return it == allow_lists().end() ? none : it->second;
}

// The setup read by its field list (control/worker_messages.hpp), then held to the policy.
std::string refuse_setup(const json &frame, const address_policy &policy) {
    control::setup_request setup;
    try {
        setup =
            control::read_fields_of<control::setup_request>(frame, control::message_kind::setup);
    } catch (const control::protocol_error &e) {
        return e.what();
    }
    if (setup.max_message_size > (std::uint64_t{1} << 30))
        return "setup: 'max_message_size' is over 1 GiB";
    const bool creator = setup.role == control::endpoint_role::creator;
    for (const auto &e : setup.endpoints) {
        if (e.address.empty()) return "setup: every endpoint needs an 'address' string (HOST:PORT)";
        std::string why = refuse_address(e.address, creator, policy);
        if (!why.empty()) return why;
    }
    return refuse_options(setup.transport, setup.options, policy);
}

std::string refuse_opened(const json &opened, const address_policy &policy) {
    const auto it = opened.find("addresses");
    if (it == opened.end() || !it->is_array()) return "";  // the client reads it as an error
    for (const auto &a : *it) {
        if (!a.is_string()) return "the worker's opened addresses are not strings";
        std::string why = refuse_address(a.get<std::string>(), true, policy);
        if (!why.empty()) return "the transport listened elsewhere than asked: " + why;
    }
    return "";
}

std::string refuse_run(const json &frame, const address_policy &policy) {
    control::run_request run;
    try {
        run = control::read_fields_of<control::run_request>(frame, control::message_kind::run);
    } catch (const control::protocol_error &e) {
        return e.what();
    }
    if (const auto kind = run.job.find("kind");
        kind != run.job.end() && kind->is_string() &&
        kind->get_ref<const std::string &>().rfind("check_", 0) == 0)
        return "an agent does not run conformance checks (ipchost check runs both sides here)";
    model::job j;
    try {
        j = run.job.get<model::job>();
    } catch (const std::exception &e) {
        return std::string("run: ") + e.what();
    }
    return over_agent_budget(j.settings, policy);
}

std::string refuse_peer_case(const json &frame, const address_policy &policy) {
    control::peer_case_request request;
    try {
        request = control::read_fields_of<control::peer_case_request>(
            frame, control::message_kind::peer_case);
        check_agent_address(request.agent, false);
    } catch (const std::exception &e) {
        return std::string("peer_case: ") + e.what();
    }
    if (std::string why = refuse_peer_target(request.agent, policy); !why.empty()) return why;
    if ((request.data_port_first == 0) != (request.data_port_last == 0) ||
        request.data_port_first > request.data_port_last)
        return "peer_case: 'data_port_first'..'data_port_last' must be a range in 1-65535, or "
               "both 0 (any port)";
    if (frame.contains("token"))
        return "peer_case: 'token' is not taken from a client: no token crosses the wire; the "
               "agent proves itself to the other agent with its own token (agents of one fleet "
               "share one)";
    const model::case_settings &c = request.settings;
    for (const std::string *impl : {&c.sender_impl, &c.receiver_impl})
        if (!impl->empty() && *impl != "native")
            return "peer_case: an agent runs only its own native worker, not the kit '" +
                   text::printable(*impl, 49) + "'";
    if (std::string why = refuse_options(c.transport_id, c.options, policy); !why.empty())
        return why;
    return over_agent_budget(c, policy);
}

std::string refuse_peer_addresses(const std::vector<std::string> &addresses,
                                  const std::string &agent_host) {
    const std::string expected = platform::canonical_address(agent_host);
    for (const auto &address : addresses) {
        std::string host;
        try {
            check_agent_address(address, false);
            host = platform::canonical_address(
                parse_host_port(address.substr(0, address.rfind(':')) + ":1", 0).host);
        } catch (const std::exception &e) {
            return std::string("the agent opened an address a client cannot use: ") + e.what();
        }
        if (host != expected)
            return fmt::format(
                "the agent at {} opened '{}', on another host: a --peer client connects only to "
                "the addresses an agent opened on its own address",
                agent_host, text::printable(address, 80));
    }
    return "";
}

std::string connect_failure_text(const std::string &address) {
    return "the agent could not connect to " + text::printable(address, 80) +
           " (refused, unreachable or no answer; the agent's log says which)";
}

}  // namespace ipcbench::remote
