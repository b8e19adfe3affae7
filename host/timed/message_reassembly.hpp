#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace ipcbench::timed {

// Cuts one stream's bytes into messages of `message_bytes`, wherever the reads cut them: the
// one reassembly of the event engines (readiness and completion). Two ways to feed it:
//   in place  a read goes to room() (behind the bytes of a message begun earlier); arrived(n)
//             hands on each whole message where it lies and moves the rest to the front;
//   from elsewhere  arrived_at(p, n): bytes read into a buffer shared by many streams; whole
//             messages are handed on from there, and of a message the read cut, only its first
//             `kept_bytes` are kept (a receiver that looks at the header only), or all of it.
// on_message(const unsigned char *message) returns false to stop: the bytes after that message
// are then dropped (from elsewhere) or kept (in place) for the next call.
class message_reassembly {
public:
    message_reassembly() = default;
    // Room for `messages` whole messages in place (0: fed from elsewhere only), and `kept_bytes`
    // of a cut message from elsewhere.
    void reserve(std::size_t message_bytes, std::size_t messages, std::size_t kept_bytes) {
        size_ = message_bytes;
        kept_ = std::min(kept_bytes, message_bytes);
        bytes_.assign(std::max(message_bytes * messages, kept_), 0);
        held_ = 0;
    }

    bool reserved() const { return !bytes_.empty(); }
    std::size_t held() const { return held_; }
    bool whole_message_held() const { return held_ >= size_; }
    void drop() { held_ = 0; }
    unsigned char *room() { return bytes_.data() + held_; }
    std::size_t room_bytes() const { return bytes_.size() - held_; }
    // Room for the rest of the message begun, no more (a reader that never reads ahead).
    std::size_t rest_of_message() const { return size_ - held_; }

    template <class OnMessage>
    void arrived(std::size_t n, OnMessage &&on_message) {
        unsigned char *first = bytes_.data(), *p = first;
        std::size_t have = held_ + n;
        bool go_on = true;
        for (; go_on && have >= size_; p += size_, have -= size_) go_on = on_message(p);
        if (have > 0 && p != first) std::memmove(first, p, have);
        held_ = have;
    }

    template <class OnMessage>
    void arrived_at(const unsigned char *p, std::size_t n, OnMessage &&on_message) {
        while (n > 0) {
            if (held_ == 0 && n >= size_) {  // a whole message where it lies
                if (!on_message(p)) return;
                p += size_;
                n -= size_;
                continue;
            }
            if (held_ < kept_) std::memcpy(bytes_.data() + held_, p, std::min(kept_ - held_, n));
            const std::size_t take = std::min(size_ - held_, n);
            held_ += take;
            p += take;
            n -= take;
            if (held_ < size_) return;
            held_ = 0;
            if (!on_message(bytes_.data())) return;
        }
    }

private:
    std::size_t size_ = 1, kept_ = 0, held_ = 0;
    std::vector<unsigned char> bytes_;
};

}  // namespace ipcbench::timed
