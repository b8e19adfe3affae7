#include "control/frame_seal.hpp"

#include "control/frame_codec.hpp"
#include "platform/crypto.hpp"

namespace ipcbench::control {
namespace {

std::string tag_of(const std::string &key, std::uint64_t sequence, const char *json,
                   std::size_t n) {
    std::string message(8, '\0');
    for (int i = 0; i < 8; ++i)
        message[static_cast<std::size_t>(i)] = static_cast<char>((sequence >> (56 - 8 * i)) & 0xff);
    message.append(json, n);
    const auto digest = platform::hmac_sha256(key, message);
    return std::string(reinterpret_cast<const char *>(digest.data()), digest.size());
}

}  // namespace

std::string frame_seal::seal(const std::string &frame) {
    if (frame.size() < 4) throw protocol_error("no frame to seal");
    const std::string tag = tag_of(key_, sequence_++, frame.data() + 4, frame.size() - 4);
    const auto n = static_cast<std::uint32_t>(frame.size() - 4 + tag.size());
    std::string out;
    out.reserve(frame.size() + tag.size());
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<char>((n >> shift) & 0xff));
    out.append(frame, 4, std::string::npos);
    out += tag;
    return out;
}

std::optional<std::string> frame_seal::try_open(const char *body, std::size_t n) {
    if (n <= seal_bytes) return std::nullopt;
    const std::size_t json = n - seal_bytes;
    const std::string expected = tag_of(key_, sequence_, body, json);
    if (!platform::equal_in_constant_time(expected, std::string(body + json, seal_bytes)))
        return std::nullopt;
    ++sequence_;
    return std::string(body, json);
}

std::string frame_seal::open(const char *body, std::size_t n) {
    if (n <= seal_bytes)
        throw protocol_error(
            "a control frame came without its session tag (relayed, or from "
            "an agent or client of another protocol)");
    if (auto opened = try_open(body, n)) return std::move(*opened);
    throw protocol_error(
        "a control frame failed its session authentication: it was "
        "altered, replayed or injected by a party between this client and "
        "the agent (a relay without the token); the session is ended");
}

}  // namespace ipcbench::control
