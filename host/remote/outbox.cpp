#include "remote/outbox.hpp"

namespace ipcbench::remote {

bool outbox::push(const std::string &bytes) {
    if (pending() + bytes.size() > limit_) return false;
    if (sent_ > 0 && sent_ * 2 >= bytes_.size()) {  // drop what went, before the buffer grows
        bytes_.erase(0, sent_);
        sent_ = 0;
    }
    bytes_ += bytes;
    return true;
}

bool outbox::flush(platform::socket_handle s, bool &moved) {
    moved = false;
    while (!empty()) {
        platform::io_result r;
        try {
            r = platform::send_some(s, bytes_.data() + sent_, pending());
        } catch (const platform::socket_error &) {
            return false;
        }
        if (r.status == platform::io_status::closed) return false;
        if (r.status == platform::io_status::would_block || r.bytes == 0) break;
        sent_ += r.bytes;
        moved = true;
    }
    if (empty()) {
        bytes_.clear();
        sent_ = 0;
    }
    return true;
}

}  // namespace ipcbench::remote
