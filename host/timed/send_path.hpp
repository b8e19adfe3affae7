#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/case_settings.hpp"
#include "model/data_path.hpp"
#include "plugin/transport_endpoint.hpp"

namespace ipcbench::timed {

// How the timed loops hand messages to a transport, chosen once per stream before timing:
//   "borrow/publish"  zero-copy: the loop writes each message in the transport's memory
//   "send_batch"      a batch of messages from the loop's buffers in one call
//   "send xN"         a batch emulated with N send calls (the transport has no send_batch)
//   "send"            one message per call
// fill(message, i) writes message i of a batch. In place (writes_in_place()), the memory holds
// whatever was there before, so fill must write the whole message; otherwise it writes into the
// path's own buffers, which keep what the loop wrote into them with for_each_buffer.
class send_path {
public:
    // zero_copy on throws if the transport cannot write in place.
    send_path(plugin::transport_endpoint &ep, std::size_t size, std::uint32_t batch,
              model::zero_copy_policy zero_copy)
        : ep_(ep), size_(size), batch_(batch ? batch : 1) {
        if (zero_copy != model::zero_copy_policy::off && ep.has_zero_copy_send())
            zero_copy_ = probe_borrow();
        if (zero_copy == model::zero_copy_policy::on && !zero_copy_)
            throw std::runtime_error(ep.transport().id +
                                     " has no zero-copy send (borrow/publish) with these options; "
                                     "use --zero-copy auto or off");
        if (zero_copy_) {
            slots_.resize(batch_);
            call_ = model::send_call::borrow_publish;
        } else {
            buffers_.resize(size_ * batch_);
            for (std::uint32_t i = 0; i < batch_; ++i)
                msgs_.push_back({buffers_.data() + i * size_, size_});
            native_batch_ = batch_ > 1 && ep.has_send_batch();
            call_ = batch_ == 1     ? model::send_call::send
                    : native_batch_ ? model::send_call::send_batch
                                    : model::send_call::emulated_batch;
        }
    }

    model::send_call call() const { return call_; }
    std::string name() const { return model::name_of(call_, batch_); }
    bool writes_in_place() const { return zero_copy_; }
    std::uint32_t batch() const { return batch_; }

    template <class F>
    void for_each_buffer(F &&f) {
        for (std::uint32_t i = 0; i < batch_ && !zero_copy_; ++i) f(buffers_.data() + i * size_);
    }

    // Sends between 1 and n (<= batch()) messages; *sent says how many went.
    template <class Fill>
    int32_t send(std::uint32_t n, Fill &&fill, std::uint32_t *sent, std::int64_t timeout_ns) {
        *sent = 0;
        if (n == 1) {
            const int32_t s = send_one([&](unsigned char *m) { fill(m, 0); }, timeout_ns);
            if (s == IPCB_OK) *sent = 1;
            return s;
        }
        if (zero_copy_) {
            std::uint32_t got = 0;
            int32_t s = ep_.borrow_raw(size_, n, slots_.data(), &got, timeout_ns);
            if (s != IPCB_OK) return s;
            if (got == 0 || got > n) return borrow_violation(got, n);
            for (std::uint32_t i = 0; i < got; ++i)
                fill(static_cast<unsigned char *>(slots_[i].data), i);
            s = ep_.publish_raw(got);
            if (s == IPCB_OK) *sent = got;
            return s;
        }
        for (std::uint32_t i = 0; i < n; ++i) fill(buffers_.data() + i * size_, i);
        if (native_batch_) return ep_.send_batch_raw(msgs_.data(), n, sent, timeout_ns);
        for (std::uint32_t i = 0; i < n; ++i) {
            int32_t s = ep_.send_raw(buffers_.data() + i * size_, size_, timeout_ns);
            if (s != IPCB_OK) return s;
            ++*sent;
        }
        return IPCB_OK;
    }

    // Sends one message that fill(message) writes: send() without the batch's loops, for the
    // round trips, where every instruction is on the timed path.
    template <class Fill>
    int32_t send_one(Fill &&fill, std::int64_t timeout_ns) {
        if (!zero_copy_) {
            fill(buffers_.data());
            return ep_.send_raw(buffers_.data(), size_, timeout_ns);
        }
        std::uint32_t got = 0;
        const int32_t s = ep_.borrow_raw(size_, 1, slots_.data(), &got, timeout_ns);
        if (s != IPCB_OK) return s;
        if (got != 1) return borrow_violation(got, 1);
        fill(static_cast<unsigned char *>(slots_[0].data));
        return ep_.publish_raw(1);
    }

    // Sends one message that already exists elsewhere (the ponger's echo): copied into a
    // borrowed slot, or sent straight from where it is.
    int32_t send_copy_of(const unsigned char *message, std::int64_t timeout_ns) {
        if (!zero_copy_) return ep_.send_raw(message, size_, timeout_ns);
        return send_one([&](unsigned char *slot) { std::memcpy(slot, message, size_); },
                        timeout_ns);
    }

private:
    // Out of line: the message is built only when a plugin breaks the contract.
    int32_t borrow_violation(std::uint32_t got, std::uint32_t asked) {
        ep_.publish_raw(0);
        return ep_.contract_violation("borrow returned IPCB_OK with " + std::to_string(got) +
                                      " slots for " + std::to_string(asked) + " asked");
    }

    // borrow may still say IPCB_E_UNSUPPORTED for this endpoint's options (pipe.fifo without
    // splice=vmsplice): one borrow, given back unsent, tells before timing starts.
    bool probe_borrow() {
        ipcb_msg slot{};
        std::uint32_t got = 0;
        int32_t s = ep_.borrow_raw(size_, 1, &slot, &got, 5'000'000'000);
        if (s == IPCB_E_UNSUPPORTED) return false;
        if (s != IPCB_OK) ep_.throw_last(s, "borrow");
        s = ep_.publish_raw(0);
        if (s != IPCB_OK) ep_.throw_last(s, "publish");
        return true;
    }

    plugin::transport_endpoint &ep_;
    std::size_t size_;
    std::uint32_t batch_;
    bool zero_copy_ = false, native_batch_ = false;
    model::send_call call_ = model::send_call::send;
    std::vector<unsigned char> buffers_;
    std::vector<ipcb_msg> msgs_, slots_;
};

}  // namespace ipcbench::timed
