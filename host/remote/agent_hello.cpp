#include "remote/agent_hello.hpp"

#include "control/message_kind.hpp"
#include "remote/agent_handshake.hpp"
#include "remote/agent_protocol.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::remote {
namespace {

using nlohmann::json;

// The type name a client sent, for an error that says what was wrong.
std::string type_of(const json &value) {
    return value.type_name();
}

std::string wrong_type(const char *field, const char *expected, const json &value) {
    return std::string("malformed hello: '") + field + "' must be " + expected + ", got " +
           type_of(value);
}

}  // namespace

std::variant<agent_hello, std::string> parse_hello(const json &frame) {
    if (!frame.is_object()) return "malformed hello: expected a JSON object, got " + type_of(frame);
    if (control::type_text(frame) == "?")
        return std::string("malformed hello: 'type' must be a string");
    if (!control::is(frame, control::message_kind::hello))
        return "expected a hello, got '" + control::type_text(frame) + "'";
    agent_hello hello;
    const auto protocol = frame.find("protocol");
    if (protocol == frame.end()) return std::string("malformed hello: 'protocol' is missing");
    if (!protocol->is_number_integer()) return wrong_type("protocol", "an integer", *protocol);
    const auto version = protocol->get<std::int64_t>();
    if (version < 0 || version > 1'000'000)
        return "protocol version " + std::to_string(version) + " is out of range";
    hello.protocol = static_cast<int>(version);
    if (hello.protocol != agent_protocol_version) return hello;  // refused by its number
    const auto nonce = frame.find("nonce");
    if (nonce == frame.end()) return std::string("malformed hello: 'nonce' is missing");
    if (!nonce->is_string()) return wrong_type("nonce", "a string", *nonce);
    if (!is_nonce(nonce->get<std::string>()))
        return std::string("malformed hello: 'nonce' must be 64 lower-case hex digits");
    hello.nonce = nonce->get<std::string>();
    const auto dialled = frame.find("dialled");
    if (dialled == frame.end()) return std::string("malformed hello: 'dialled' is missing");
    if (!dialled->is_string()) return wrong_type("dialled", "a string", *dialled);
    if (dialled->get_ref<const std::string &>().size() > 64)
        return std::string("malformed hello: 'dialled' is longer than 64 characters");
    hello.dialled = dialled->get<std::string>();
    if (const auto client = frame.find("client"); client != frame.end()) {
        if (!client->is_string()) return wrong_type("client", "a string", *client);
        hello.client = text::printable(client->get<std::string>(), 80);
    }
    if (const auto done = frame.find("done"); done != frame.end()) {
        if (!done->is_boolean()) return wrong_type("done", "true or false", *done);
        hello.done = done->get<bool>();
    }
    if (const auto session = frame.find("session"); session != frame.end()) {
        if (!session->is_string()) return wrong_type("session", "a string", *session);
        const auto &kind = session->get_ref<const std::string &>();
        if (kind != "worker" && kind != "peer_client" && kind != "roll_call")
            return "malformed hello: 'session' must be \"worker\", \"peer_client\" or "
                   "\"roll_call\", got '" +
                   text::printable(kind, 40) + "'";
        hello.peer_client = kind == "peer_client";
        hello.roll_call = kind == "roll_call";
    }
    hello.session = hello.peer_client ? "peer_client" : hello.roll_call ? "roll_call" : "worker";
    return hello;
}

std::variant<agent_auth, std::string> parse_auth(const json &frame) {
    if (!frame.is_object()) return "malformed auth: expected a JSON object, got " + type_of(frame);
    if (!control::is(frame, control::message_kind::auth))
        return "expected an auth after the challenge, got '" +
               text::printable(control::type_text(frame), 40) + "'";
    const auto proof = frame.find("proof");
    if (proof == frame.end()) return std::string("malformed auth: 'proof' is missing");
    if (!proof->is_string()) return wrong_type("proof", "a string", *proof);
    if (proof->get_ref<const std::string &>().size() > 128)
        return std::string("malformed auth: 'proof' is longer than 128 characters");
    return agent_auth{proof->get<std::string>()};
}

}  // namespace ipcbench::remote
