#include "control/message_kind.hpp"

#include <array>

#include "control/frame_codec.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::control {
namespace {

using k = message_kind;

// kind, name, request, answer, agent_relays, peer_relays
constexpr std::array<message_kind_info, 20> kinds = {{
    {k::hello, "hello", false, false, false, false},
    {k::welcome, "welcome", false, false, true, false},
    {k::goodbye, "goodbye", false, false, false, false},
    {k::setup, "setup", true, false, true, false},
    {k::opened, "opened", false, true, false, false},
    {k::connect, "connect", true, false, true, false},
    {k::connected, "connected", false, true, false, false},
    {k::run, "run", true, false, true, false},
    {k::interval, "interval", false, false, false, false},
    {k::sent, "sent", false, false, false, false},
    {k::sender_done, "sender_done", false, false, true, false},
    {k::probe, "probe", true, false, false, false},
    {k::result, "result", false, true, false, false},
    {k::close, "close", true, false, true, false},
    {k::closed, "closed", false, true, false, false},
    {k::error, "error", false, true, false, false},
    {k::peer_case, "peer_case", true, false, false, true},
    {k::peer_result, "peer_result", false, true, false, false},
    {k::challenge, "challenge", false, false, false, false},
    {k::auth, "auth", false, false, false, false},
}};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < kinds.size(); ++i)
        if (static_cast<std::size_t>(kinds[i].kind) != i) return false;
    return true;
}
static_assert(in_enum_order(), "one row per message_kind, in the enum's order");

}  // namespace

const message_kind_info &info(message_kind kind) {
    return kinds[static_cast<std::size_t>(kind)];
}

const char *name_of(message_kind kind) {
    return info(kind).name;
}

std::optional<message_kind> message_kind_from(const std::string &name) {
    for (const auto &row : kinds)
        if (name == row.name) return row.kind;
    return std::nullopt;
}

std::vector<std::string> names_where(bool message_kind_info::*property) {
    std::vector<std::string> out;
    for (const auto &row : kinds)
        if (row.*property) out.emplace_back(row.name);
    return out;
}

nlohmann::json message(message_kind kind, nlohmann::json fields) {
    fields["type"] = name_of(kind);
    return fields;
}

nlohmann::json message_of_no_kind(const std::string &type) {
    return {{"type", type}};
}

message_kind kind_of(const nlohmann::json &m) {
    const auto &type = m.at("type").get_ref<const std::string &>();
    if (auto kind = message_kind_from(type)) return *kind;
    throw protocol_error("unknown control message '" + text::printable(type, 40) + "'");
}

std::string type_text(const nlohmann::json &m) {
    const auto type = m.is_object() ? m.find("type") : m.end();
    return m.is_object() && type != m.end() && type->is_string()
               ? text::printable(type->get<std::string>(), 40)
               : std::string("?");
}

std::optional<message_kind> known_kind(const nlohmann::json &m) {
    const auto type = m.is_object() ? m.find("type") : m.end();
    if (!m.is_object() || type == m.end() || !type->is_string()) return std::nullopt;
    return message_kind_from(type->get_ref<const std::string &>());
}

bool is(const nlohmann::json &m, message_kind kind) {
    return known_kind(m) == kind;
}

}  // namespace ipcbench::control
