#include "cli/fleet_agents.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "cli/usage_error.hpp"
#include "platform/stream_socket.hpp"
#include "remote/address_rules.hpp"
#include "remote/agent_labels.hpp"
#include "remote/agent_protocol.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::cli {
namespace {

constexpr std::size_t max_agents = 1024;
constexpr std::size_t max_line = 4096;
constexpr int max_lines = 100000;

// "" when an address a dns: name gave may be an agent's: none that is unspecified, link-local
// (169.254.169.254: a cloud's metadata service), multicast or broadcast, and a loopback one
// only when the name asks for this host (localhost, *.localhost).
std::string refused_answer(const std::string &name, const std::string &host) {
    const remote::address_scope scope = remote::scope_of(host);
    if (scope == remote::address_scope::ordinary) return "";
    const bool asks_loopback =
        name == "localhost" ||
        (name.size() > 10 && name.compare(name.size() - 10, 10, ".localhost") == 0);
    if (scope == remote::address_scope::loopback && asks_loopback) return "";
    return "'" + text::printable(name, 80) + "' resolves to " + host + ", which is " +
           remote::describe(scope) +
           ": no agent of a fleet is there; refused (name the agents by address, or fix what "
           "the name resolves to)";
}

// The agents one entry names: one address, or every address behind a dns: name.
std::vector<remote::host_port> addresses_of(const std::string &where, const std::string &what) {
    if (where.rfind("dns:", 0) != 0) {
        try {
            return {remote::parse_host_port(where, remote::default_port)};
        } catch (const std::exception &e) {
            throw usage_error(what + ": " + e.what() +
                              " (an agent is HOST:PORT with a numeric address, or dns:NAME:PORT)");
        }
    }
    const std::string rest = where.substr(4);
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0)
        throw usage_error(what + ": expected dns:NAME:PORT, e.g. dns:ipchost-agents:7451");
    int port = 0;
    try {
        port = remote::parse_host_port("127.0.0.1" + rest.substr(colon), 0).port;
    } catch (const std::exception &e) {
        throw usage_error(what + ": " + e.what());
    }
    std::vector<std::string> found;
    try {
        found = platform::resolve_addresses(rest.substr(0, colon));
    } catch (const std::exception &e) {
        throw usage_error(what + ": " + e.what());
    }
    const std::string name = rest.substr(0, colon);
    std::vector<remote::host_port> out;
    out.reserve(found.size());
    for (const auto &host : found) {
        if (std::string why = refused_answer(name, host); !why.empty())
            throw usage_error(what + ": " + why);
        out.push_back({host, port});
    }
    return out;
}

void add_entry(const std::string &entry, const std::string &what, const std::string &token,
               std::vector<fleet_agent> &out) {
    std::istringstream words(entry);
    std::string where, word;
    words >> where;
    std::map<std::string, std::string> labels;
    while (words >> word) {
        try {
            labels.insert(remote::parse_label(word));
        } catch (const std::invalid_argument &e) {
            throw usage_error(what + ": " + e.what());
        }
        if (labels.size() > remote::max_labels)
            throw usage_error(what + ": more than " + std::to_string(remote::max_labels) +
                              " labels");
    }
    for (const auto &address : addresses_of(where, what)) {
        fleet_agent a;
        a.agent.address = address;
        a.agent.token = token;
        a.labels = labels;
        for (const auto &known : out)
            if (known.name() == a.name())
                throw usage_error(what + ": the agent " + a.name() + " is listed twice");
        if (out.size() == max_agents)
            throw usage_error(what + ": more than " + std::to_string(max_agents) + " agents");
        out.push_back(std::move(a));
    }
}

// The next line, read no further than one character past max_line (a file without newlines,
// /dev/zero, costs 4 KiB, not the machine's memory). False at the end of the file.
bool bounded_line(std::istream &in, std::string &line) {
    line.clear();
    for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
        if (c == '\n') return true;
        line += static_cast<char>(c);
        if (line.size() > max_line) return true;
    }
    return !line.empty();
}

}  // namespace

std::vector<fleet_agent> fleet_agents(const std::vector<std::string> &entries,
                                      const std::string &file, const std::string &token) {
    std::vector<fleet_agent> out;
    for (const auto &e : entries)
        add_entry(e, "--agent '" + text::printable(e, 80) + "'", token, out);
    if (file.rfind("dns:", 0) == 0) {  // --agents dns:NAME:PORT, no file: the name's addresses
        add_entry(file, "--agents '" + text::printable(file, 80) + "'", token, out);
    } else if (!file.empty()) {
        std::ifstream in(file);
        if (!in) throw usage_error("--agents '" + file + "': cannot read it");
        std::string line;
        for (int number = 1; bounded_line(in, line); ++number) {
            if (line.size() > max_line)
                throw usage_error("--agents " + file + ":" + std::to_string(number) +
                                  ": a line longer than 4 KiB (it was not read further)");
            if (number > max_lines)
                throw usage_error("--agents " + file + ": more than " + std::to_string(max_lines) +
                                  " lines");
            const auto hash = line.find('#');
            if (hash != std::string::npos) line.erase(hash);
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            add_entry(line, "--agents " + file + ":" + std::to_string(number), token, out);
        }
    }
    if (out.size() < 2)
        throw usage_error(
            "ipchost fleet needs two agents at least (--agent HOST:PORT, repeated, "
            "or --agents FILE); it has " +
            std::to_string(out.size()));
    return out;
}

}  // namespace ipcbench::cli
