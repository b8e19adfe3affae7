#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "model/case_settings.hpp"
#include "model/data_path.hpp"
#include "plugin/transport_endpoint.hpp"
#include "timed/message_io.hpp"

namespace ipcbench::timed {

// How the timed loops take messages from a transport, chosen once per stream before timing:
//   "take/release"  zero-copy (message transports): the loop reads messages where they arrived
//   "recv_batch"    several messages per call into the loop's buffers (recvmmsg, one ring pass)
//   "recv xN bytes" stream transports with a batch: one recv reads up to N messages' worth
//   "recv"          one message per call (streams reassembled from partial reads)
// on_message(const unsigned char *message) sees each message of exactly `size` bytes and returns
// false to stop at it (the end marker); the messages after it in the same batch are dropped.
class receive_path {
public:
    receive_path(plugin::transport_endpoint &ep, std::size_t size, std::uint32_t batch,
                 model::zero_copy_policy zero_copy, bool stream)  // "on": send_path enforces it
        : ep_(ep), size_(size), batch_(batch ? batch : 1), stream_(stream) {
        if (zero_copy != model::zero_copy_policy::off && !stream && ep.has_zero_copy_recv()) {
            zero_copy_ = true;
            msgs_.resize(batch_);
            call_ = model::receive_call::take_release;
            return;
        }
        if (stream_) {
            buffer_.resize(size_ * batch_);
            call_ = batch_ == 1 ? model::receive_call::recv : model::receive_call::stream_batch;
        } else if (batch_ > 1 && ep.has_recv_batch()) {
            native_batch_ = true;
            buffer_.resize(size_ * batch_);
            for (std::uint32_t i = 0; i < batch_; ++i)
                msgs_.push_back({buffer_.data() + i * size_, size_});
            call_ = model::receive_call::recv_batch;
        } else {
            buffer_.resize(size_);
            call_ = model::receive_call::recv;
        }
    }

    model::receive_call call() const { return call_; }
    std::string name() const { return model::name_of(call_, batch_); }
    // True when on_message sees the transport's own memory (take/release): nothing may be sent
    // on the same endpoint until the message is released.
    bool reads_in_place() const { return zero_copy_; }

    // Receives at least one message (waiting at most timeout_ns for the first) and hands each
    // to on_message. Returns the plugin status; IPCB_E_TRUNCATED for a message of another size.
    template <class OnMessage>
    int32_t receive(OnMessage &&on_message, std::int64_t timeout_ns) {
        if (zero_copy_ && batch_ == 1) return take_one(on_message, timeout_ns);
        if (zero_copy_) {
            std::uint32_t got = 0;
            int32_t s = ep_.take_raw(batch_, msgs_.data(), &got, timeout_ns);
            if (s != IPCB_OK) return s;
            if (got == 0 || got > batch_) return take_violation(got);
            int32_t status = IPCB_OK;
            for (std::uint32_t i = 0; i < got; ++i) {
                if (msgs_[i].len != size_) {
                    status = IPCB_E_TRUNCATED;
                    break;
                }
                if (!on_message(static_cast<const unsigned char *>(msgs_[i].data))) break;
            }
            const int32_t r = ep_.release_raw(got);
            return status != IPCB_OK ? status : r;
        }
        if (native_batch_) {
            for (auto &m : msgs_) m.len = size_;
            std::uint32_t got = 0;
            int32_t s = ep_.recv_batch_raw(msgs_.data(), batch_, &got, timeout_ns);
            if (s != IPCB_OK && got == 0) return s;
            if (got > batch_)
                return ep_.contract_violation("recv_batch returned " + std::to_string(got) +
                                              " messages for " + std::to_string(batch_));
            for (std::uint32_t i = 0; i < got; ++i) {
                if (msgs_[i].len != size_) return IPCB_E_TRUNCATED;
                if (!on_message(static_cast<const unsigned char *>(msgs_[i].data))) break;
            }
            return s;
        }
        if (stream_ && batch_ > 1) return receive_stream_batch(on_message, timeout_ns);
        int32_t s = receive_message(ep_, stream_, buffer_.data(), size_, timeout_ns);
        if (s == IPCB_OK) on_message(static_cast<const unsigned char *>(buffer_.data()));
        return s;
    }

private:
    // One message taken (batch 1: the round trips): the batch's loop left out, as every
    // instruction here is on the timed path.
    template <class OnMessage>
    int32_t take_one(OnMessage &&on_message, std::int64_t timeout_ns) {
        std::uint32_t got = 0;
        const int32_t s = ep_.take_raw(1, msgs_.data(), &got, timeout_ns);
        if (s != IPCB_OK) return s;
        if (got != 1) return take_violation(got);
        const bool whole = msgs_[0].len == size_;
        if (whole) on_message(static_cast<const unsigned char *>(msgs_[0].data));
        const int32_t r = ep_.release_raw(1);
        return whole ? r : IPCB_E_TRUNCATED;
    }

    // Out of line: the message is built only when a plugin breaks the contract.
    int32_t take_violation(std::uint32_t got) {
        ep_.release_raw(got > batch_ ? 0 : got);
        return ep_.contract_violation("take returned IPCB_OK with " + std::to_string(got) +
                                      " messages for " + std::to_string(batch_) + " asked");
    }

    // One recv of up to batch x size bytes; whole messages go to on_message, a partial one
    // stays at the front of the buffer for the next call.
    template <class OnMessage>
    int32_t receive_stream_batch(OnMessage &&on_message, std::int64_t timeout_ns) {
        for (;;) {
            std::size_t n = 0;
            int32_t s =
                ep_.recv_raw(buffer_.data() + held_, buffer_.size() - held_, &n, timeout_ns);
            if (s != IPCB_OK) {
                if (s == IPCB_E_TIMEOUT && held_ > 0) continue;  // mid-message: keep waiting
                return s;
            }
            if (n == 0 || n > buffer_.size() - held_)
                return ep_.contract_violation(
                    "recv returned IPCB_OK with " + std::to_string(n) + " bytes for a " +
                    std::to_string(buffer_.size() - held_) + "-byte buffer");
            held_ += n;
            const std::size_t whole = held_ / size_;
            if (whole == 0) continue;
            for (std::size_t i = 0; i < whole; ++i)
                if (!on_message(buffer_.data() + i * size_)) break;
            held_ -= whole * size_;
            if (held_) std::memmove(buffer_.data(), buffer_.data() + whole * size_, held_);
            return IPCB_OK;
        }
    }

    plugin::transport_endpoint &ep_;
    std::size_t size_;
    std::uint32_t batch_;
    bool stream_, zero_copy_ = false, native_batch_ = false;
    model::receive_call call_ = model::receive_call::recv;
    std::vector<unsigned char> buffer_;
    std::vector<ipcb_msg> msgs_;
    std::size_t held_ = 0;
};

}  // namespace ipcbench::timed
