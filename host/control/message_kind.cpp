#include "control/message_kind.hpp"

#include <array>
#include <iterator>

#include "control/frame_codec.hpp"
#include "model/generated/protocol_definition.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::control {
namespace {

constexpr std::size_t kind_count = std::size(protocol::kinds);

// The definition's rows (model/generated/protocol_definition.hpp), each with its enum value: the
// generated enum lists the same kinds in the same order.
constexpr std::array<message_kind_info, kind_count> make_kinds() {
    std::array<message_kind_info, kind_count> out{};
    for (std::size_t i = 0; i < kind_count; ++i) {
        const auto &row = protocol::kinds[i];
        out[i] = {static_cast<message_kind>(i),
                  row.name,
                  row.request,
                  row.answer,
                  row.agent_relays,
                  row.peer_relays};
    }
    return out;
}
constexpr auto kinds = make_kinds();

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
