#pragma once

// The messages of the worker protocol (docs/worker-protocol.md), one struct each with its field
// list; write_message and read_message are the one writer and the one reader of every message
// the orchestrator and a worker exchange, whichever process or language is at the other end.
// Results and interval reports have their own models (model/loop_result.hpp,
// model/interval_figures.hpp); the agent's handshake is remote/agent_hello.hpp.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "control/control_channel.hpp"
#include "control/message_kind.hpp"
#include "model/case_settings.hpp"
#include "model/field_visitors.hpp"
#include "model/generated/protocol_definition.hpp"

namespace ipcbench::control {

// A worker protocol version: major.minor. A minor version adds optional fields and nothing
// else; a new major version may change anything.
struct protocol_version {
    int major = 0;
    int minor = 0;
};
bool operator==(protocol_version a, protocol_version b);
bool operator<(protocol_version a, protocol_version b);
std::string to_string(protocol_version v);
std::optional<protocol_version> protocol_version_from(const std::string &text);

// What this ipchost speaks, oldest first.
const std::vector<protocol_version> &spoken_versions();
// The newest version both sides speak, or nothing.
std::optional<protocol_version> pick_version(const std::vector<std::string> &offered);

// Most endpoints one setup may open: streams times two directions.
inline constexpr std::size_t max_endpoints = static_cast<std::size_t>(protocol::max_endpoints);
static_assert(max_endpoints == 2 * static_cast<std::size_t>(model::max_streams));

enum class endpoint_role { creator, connector };
const char *to_string(endpoint_role r);
bool from_name(const std::string &name, endpoint_role &out);

enum class endpoint_direction { send, recv, both };
const char *to_string(endpoint_direction d);
bool from_name(const std::string &name, endpoint_direction &out);
std::uint32_t abi_direction(endpoint_direction d);  // IPCB_DIR_*
endpoint_direction direction_of(std::uint32_t abi_direction);

namespace detail {
template <class M, class T>
constexpr bool is_a = std::is_same_v<std::remove_const_t<M>, T>;
template <class M, class T>
using if_a = std::enable_if_t<is_a<M, T>>;
}  // namespace detail

// Every message's struct and field list, made from the protocol's definition
// (protocol/worker-protocol.json; model/field_visitors.hpp says what each call means).
}  // namespace ipcbench::control
#include "control/generated/message_structs.hpp"  // IWYU pragma: export
namespace ipcbench::control {

// The message, {"type": ...} and its fields.
template <class M>
nlohmann::json write_message(const M &m) {
    return message(m.kind, model::field_writer::write_fields(m));
}

// Reads fields of a message already known to be of M's kind; protocol_error naming the message
// and the field when one is missing, mistyped or out of range.
template <class M>
M read_fields_of(const nlohmann::json &m, message_kind kind) {
    M out{};
    try {
        model::field_reader::read_into(m, std::string(name_of(kind)) + " message", out);
    } catch (const model::bad_field &e) {
        throw protocol_error(e.what());
    }
    return out;
}

// The message of kind M::kind, every field checked: protocol_error naming the message and the
// field otherwise, peer_error when the peer sent an error instead (control_channel.hpp).
template <class M>
M read_message(const nlohmann::json &m) {
    const message_kind kind = M{}.kind;
    expect_kind(m, kind);
    return read_fields_of<M>(m, kind);
}

// A sent or a sender_done message.
sender_counts read_sender_counts(const nlohmann::json &m);

}  // namespace ipcbench::control
