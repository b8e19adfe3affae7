#include "control/frame_codec.hpp"

#include "text/untrusted_json.hpp"

namespace ipcbench::control {

std::string encode_frame(const nlohmann::json &message) {
    std::string body = message.dump();
    if (body.size() > max_frame_bytes)
        throw protocol_error("control message of " + std::to_string(body.size()) +
                             " bytes exceeds the frame limit");
    auto n = static_cast<std::uint32_t>(body.size());
    std::string frame;
    frame.reserve(4 + body.size());
    frame.push_back(static_cast<char>((n >> 24) & 0xff));
    frame.push_back(static_cast<char>((n >> 16) & 0xff));
    frame.push_back(static_cast<char>((n >> 8) & 0xff));
    frame.push_back(static_cast<char>(n & 0xff));
    frame += body;
    return frame;
}

void frame_decoder::feed(const char *data, std::size_t size) {
    if (consumed_ > 0 && consumed_ == buffer_.size()) {
        buffer_.clear();
        consumed_ = 0;
    }
    buffer_.append(data, size);
}

std::optional<nlohmann::json> frame_decoder::next() {
    if (buffered() < 4) return std::nullopt;
    const auto *p = reinterpret_cast<const unsigned char *>(buffer_.data() + consumed_);
    std::uint32_t n = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                      (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
    if (n > max_frame_)
        throw protocol_error("control frame of " + std::to_string(n) + " bytes exceeds the " +
                             std::to_string(max_frame_) + "-byte limit");
    if (n == 0) throw protocol_error("empty control frame");
    if (buffered() < 4 + std::size_t{n}) return std::nullopt;
    const char *body = buffer_.data() + consumed_ + 4;
    consumed_ += 4 + std::size_t{n};
    std::string opened;
    if (opener_) {
        opened = opener_->open(body, n);
        body = opened.data();
        n = static_cast<std::uint32_t>(opened.size());
    }
    nlohmann::json message;
    try {
        message = text::parse_untrusted_json(body, n, {max_frame_depth, max_frame_bytes / 2});
    } catch (const text::json_error &e) {
        throw protocol_error(std::string("control frame is ") + e.what());
    }
    if (!message.is_object() || !message.contains("type") || !message["type"].is_string())
        throw protocol_error("control frame is not an object with a string \"type\"");
    if (consumed_ > 65536 && consumed_ * 2 > buffer_.size()) {
        buffer_.erase(0, consumed_);
        consumed_ = 0;
    }
    return message;
}

}  // namespace ipcbench::control
