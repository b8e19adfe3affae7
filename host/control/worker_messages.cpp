#include "control/worker_messages.hpp"

#include <ipcbench/transport.h>

#include <algorithm>

namespace ipcbench::control {

// The protocol's statuses are the ABI's (protocol/worker-protocol.json, "statuses").
static_assert(protocol::status_ok == IPCB_OK && protocol::status_e_timeout == IPCB_E_TIMEOUT &&
              protocol::status_e_closed == IPCB_E_CLOSED &&
              protocol::status_e_truncated == IPCB_E_TRUNCATED &&
              protocol::status_e_invalid == IPCB_E_INVALID &&
              protocol::status_e_unknown_option == IPCB_E_UNKNOWN_OPTION &&
              protocol::status_e_bad_option == IPCB_E_BAD_OPTION &&
              protocol::status_e_bad_address == IPCB_E_BAD_ADDRESS &&
              protocol::status_e_too_big == IPCB_E_TOO_BIG &&
              protocol::status_e_unsupported == IPCB_E_UNSUPPORTED &&
              protocol::status_e_no_memory == IPCB_E_NO_MEMORY &&
              protocol::status_e_system == IPCB_E_SYSTEM &&
              protocol::status_e_internal == IPCB_E_INTERNAL);

namespace {

const auto &role_names = protocol::endpoint_role_names;
const auto &direction_names = protocol::endpoint_direction_names;

}  // namespace

bool operator==(protocol_version a, protocol_version b) {
    return a.major == b.major && a.minor == b.minor;
}

bool operator<(protocol_version a, protocol_version b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}

std::string to_string(protocol_version v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor);
}

// "1.0": two decimal numbers of at most 4 digits, nothing else.
std::optional<protocol_version> protocol_version_from(const std::string &text) {
    const auto dot = text.find('.');
    auto number = [](const std::string &s) -> int {
        if (s.empty() || s.size() > 4) return -1;
        for (const char c : s)
            if (c < '0' || c > '9') return -1;
        return std::stoi(s);
    };
    if (dot == std::string::npos) return std::nullopt;
    const int major = number(text.substr(0, dot)), minor = number(text.substr(dot + 1));
    if (major < 0 || minor < 0) return std::nullopt;
    return protocol_version{major, minor};
}

const std::vector<protocol_version> &spoken_versions() {
    // protocol/worker-protocol.json's "versions" say what each minor version added.
    static const std::vector<protocol_version> versions = [] {
        std::vector<protocol_version> out;
        for (const char *text : protocol::versions) out.push_back(*protocol_version_from(text));
        return out;
    }();
    return versions;
}

// The newest version offered that this ipchost speaks. A worker of 1.3 speaking to a host of
// 1.0 offers "1.3": a minor version only adds optional fields, so 1.3 includes 1.0, and the
// two speak the lower minor.
std::optional<protocol_version> pick_version(const std::vector<std::string> &offered) {
    std::optional<protocol_version> best;
    for (const auto &text : offered) {
        const auto v = protocol_version_from(text);
        if (!v) continue;
        for (const auto &ours : spoken_versions()) {
            if (ours.major != v->major) continue;
            const protocol_version both{ours.major, std::min(ours.minor, v->minor)};
            if (!best || *best < both) best = both;
        }
    }
    return best;
}

const char *to_string(endpoint_role r) {
    return role_names[static_cast<int>(r)];
}
bool from_name(const std::string &name, endpoint_role &out) {
    return model::from_name_in(role_names, name, out);
}
const char *to_string(endpoint_direction d) {
    return direction_names[static_cast<int>(d)];
}
bool from_name(const std::string &name, endpoint_direction &out) {
    return model::from_name_in(direction_names, name, out);
}

std::uint32_t abi_direction(endpoint_direction d) {
    switch (d) {
        case endpoint_direction::send: return IPCB_DIR_SEND;
        case endpoint_direction::recv: return IPCB_DIR_RECV;
        case endpoint_direction::both: return IPCB_DIR_BOTH;
    }
    return IPCB_DIR_SEND;
}

endpoint_direction direction_of(std::uint32_t abi) {
    if (abi == IPCB_DIR_RECV) return endpoint_direction::recv;
    if (abi == IPCB_DIR_BOTH) return endpoint_direction::both;
    return endpoint_direction::send;
}

sender_counts read_sender_counts(const nlohmann::json &m) {
    const message_kind kind = kind_of(m);
    if (kind != message_kind::sent && kind != message_kind::sender_done)
        throw protocol_error(std::string("expected a 'sent' or 'sender_done' message, got '") +
                             name_of(kind) + "'");
    auto counts = read_fields_of<sender_counts>(m, kind);
    counts.kind = kind;
    return counts;
}

}  // namespace ipcbench::control
