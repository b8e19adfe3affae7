// The worker halves of the ABI 1.1 checks: zero-copy (borrow/publish, take/release), batches
// (send_batch, recv_batch), and a crash while a slot is borrowed or a message taken.
#include <fmt/format.h>
#include <vector>

#include "conformance/check_verdict.hpp"
#include "conformance/conformance_jobs.hpp"
#include "platform/last_words.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;

constexpr std::int64_t wait_ns = 10'000'000'000;
constexpr std::uint32_t max_batch = 4;

unsigned char byte_at(std::size_t size, std::size_t index, std::size_t offset) {
    return static_cast<unsigned char>(offset * 13 + index * 29 + size + 1);
}
void fill(unsigned char *m, std::size_t size, std::size_t index) {
    for (std::size_t o = 0; o < size; ++o) m[o] = byte_at(size, index, o);
}
// The first byte that differs from message `index`, or "" when it matches.
std::string mismatch(const unsigned char *m, std::size_t len, std::size_t size, std::size_t index) {
    if (len != size)
        return fmt::format("message {} arrived with {} B, sent with {} B", index, len, size);
    for (std::size_t o = 0; o < size; ++o)
        if (m[o] != byte_at(size, index, o))
            return fmt::format("message {} ({} B): byte {} is 0x{:02x}, expected 0x{:02x}", index,
                               size, o, m[o], byte_at(size, index, o));
    return "";
}

}  // namespace

json zero_copy_send(plugin::transport_endpoint &out, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    std::size_t index = 0, returned = 0;
    bool unsupported = !out.has_zero_copy_send();
    ipcb_msg slots[max_batch];
    for (std::size_t size : sizes) {
        for (std::size_t done = 0; done < per_size;) {
            std::uint32_t got = 0;
            const auto want =
                static_cast<std::uint32_t>(std::min<std::size_t>(max_batch, per_size - done));
            int32_t s =
                unsupported ? IPCB_E_UNSUPPORTED : out.borrow_raw(size, want, slots, &got, wait_ns);
            if (s == IPCB_E_UNSUPPORTED && index == 0) unsupported = true;
            if (unsupported) {  // not with these options: the same messages through send
                std::vector<unsigned char> m(size);
                fill(m.data(), size, index);
                if ((s = out.send_raw(m.data(), size, wait_ns)) != IPCB_OK)
                    return verdict(false, "send failed: " + failure_text(out, s));
                ++index;
                ++done;
                continue;
            }
            if (s != IPCB_OK)
                return verdict(false, fmt::format("borrow of {} x {} B failed: {}", want, size,
                                                  failure_text(out, s)));
            if (got == 0 || got > want)
                return verdict(false,
                               fmt::format("borrow returned {} slots for {} asked", got, want));
            // A second borrow while slots are out must be refused, not hand out the same room.
            std::uint32_t again = 0;
            ipcb_msg extra{};
            if ((s = out.borrow_raw(size, 1, &extra, &again, 0)) != IPCB_E_INVALID)
                return verdict(false, fmt::format("a borrow while {} slots were borrowed "
                                                  "returned {}, expected IPCB_E_INVALID",
                                                  got, ipcb_status_name(s)));
            for (std::uint32_t i = 0; i < got; ++i) {
                if (slots[i].len != size || slots[i].data == nullptr)
                    return verdict(false, fmt::format("borrow slot {} has {} B, asked {}", i,
                                                      slots[i].len, size));
                fill(static_cast<unsigned char *>(slots[i].data), size, index + i);
            }
            // Publish all but the last slot of a multi-slot borrow: the last must never arrive,
            // and the next borrow reuses its room.
            const std::uint32_t publish = got > 1 ? got - 1 : got;
            if ((s = out.publish_raw(publish)) != IPCB_OK)
                return verdict(false, "publish failed: " + failure_text(out, s));
            returned += got - publish;
            index += publish;
            done += publish;
        }
    }
    if (unsupported)
        return verdict(true, fmt::format("borrow unsupported with these options; {} messages "
                                         "sent with send",
                                         index));
    return verdict(true, fmt::format("{} messages published, {} borrowed slots given back unsent",
                                     index, returned));
}

json zero_copy_receive(plugin::transport_endpoint &in, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    std::size_t index = 0, retaken = 0;
    ipcb_msg msgs[max_batch];
    std::vector<unsigned char> copy;
    std::string problem;
    const bool stream = job.at("stream");
    const bool zero_copy = in.has_zero_copy_recv() && !stream;
    std::size_t total = sizes.size() * per_size;
    while (index < total) {
        const std::size_t size = sizes[index / per_size];
        if (!zero_copy) {
            copy.resize(size + 1);
            std::size_t got = 0;
            do {  // a stream delivers the message in pieces
                std::size_t n = 0;
                int32_t s =
                    in.recv_raw(copy.data() + got, stream ? size - got : size + 1, &n, wait_ns);
                if (s != IPCB_OK)
                    return verdict(false, fmt::format("recv of message {} failed: {}", index,
                                                      failure_text(in, s)));
                got += n;
            } while (stream && got < size);
            if (problem.empty()) problem = mismatch(copy.data(), got, size, index);
            ++index;
            continue;
        }
        std::uint32_t got = 0;
        int32_t s = in.take_raw(max_batch, msgs, &got, wait_ns);
        if (s != IPCB_OK)
            return verdict(
                false, fmt::format("take for message {} failed: {}", index, failure_text(in, s)));
        if (got == 0 || got > max_batch)
            return verdict(false,
                           fmt::format("take returned {} messages for {} asked", got, max_batch));
        std::uint32_t again = 0;
        ipcb_msg extra{};
        if ((s = in.take_raw(1, &extra, &again, 0)) != IPCB_E_INVALID)
            return verdict(false, fmt::format("a take while {} messages were taken returned {}, "
                                              "expected IPCB_E_INVALID",
                                              got, ipcb_status_name(s)));
        for (std::uint32_t i = 0; i < got && index + i < total; ++i) {
            const std::size_t sz = sizes[(index + i) / per_size];
            if (problem.empty())
                problem = mismatch(static_cast<const unsigned char *>(msgs[i].data), msgs[i].len,
                                   sz, index + i);
        }
        // Release only the first of several: the others must come again, first, in order.
        const std::uint32_t release = got > 1 ? 1 : got;
        if ((s = in.release_raw(release)) != IPCB_OK)
            return verdict(false, "release failed: " + failure_text(in, s));
        retaken += got - release;
        index += release;
    }
    if (!problem.empty()) return verdict(false, problem);
    return verdict(true, fmt::format("{} messages checked byte for byte{}", index,
                                     zero_copy ? fmt::format(" through take/release, {} taken "
                                                             "again after a partial release",
                                                             retaken)
                                               : std::string(" through recv")));
}

json batch_send(plugin::transport_endpoint &out, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    std::size_t index = 0, calls = 0;
    for (std::size_t size : sizes) {
        std::vector<unsigned char> buffers(size * per_size);
        std::vector<ipcb_msg> msgs;
        for (std::size_t i = 0; i < per_size; ++i) {
            fill(buffers.data() + i * size, size, index + i);
            msgs.push_back({buffers.data() + i * size, size});
        }
        std::uint32_t sent = 0;
        int32_t s = IPCB_OK;
        if (out.has_send_batch()) {
            s = out.send_batch_raw(msgs.data(), static_cast<std::uint32_t>(per_size), &sent,
                                   wait_ns);
            ++calls;
        } else {
            for (auto &m : msgs)
                if ((s = out.send_raw(m.data, m.len, wait_ns)) == IPCB_OK)
                    ++sent;
                else
                    break;
        }
        if (s != IPCB_OK || sent != per_size)
            return verdict(false, fmt::format("send_batch of {} x {} B: {} sent, {}", per_size,
                                              size, sent, failure_text(out, s)));
        index += per_size;
    }
    return verdict(true, fmt::format("{} messages in {} send_batch calls", index, calls));
}

json batch_receive(plugin::transport_endpoint &in, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    const bool stream = job.at("stream");
    std::size_t index = 0, calls = 0;
    std::string problem;
    for (std::size_t size : sizes) {
        std::vector<unsigned char> buffers((size + 1) * per_size);
        std::size_t done = 0;
        if (stream || !in.has_recv_batch()) {
            // One stream of bytes: read it all, then check the messages in it.
            std::size_t got = 0;
            const std::size_t want = stream ? size * per_size : 0;
            while (stream && got < want) {
                std::size_t n = 0;
                int32_t s = in.recv_raw(buffers.data() + got, want - got, &n, wait_ns);
                if (s != IPCB_OK)
                    return verdict(
                        false, fmt::format("recv after {} B failed: {}", got, failure_text(in, s)));
                got += n;
            }
            for (; done < per_size; ++done) {
                std::size_t n = size;
                unsigned char *m = buffers.data() + done * (stream ? size : size + 1);
                if (!stream) {
                    int32_t s = in.recv_raw(m, size + 1, &n, wait_ns);
                    if (s != IPCB_OK)
                        return verdict(false, fmt::format("recv failed: {}", failure_text(in, s)));
                }
                if (problem.empty()) problem = mismatch(m, n, size, index + done);
            }
        }
        while (done < per_size) {
            std::vector<ipcb_msg> msgs;
            for (std::size_t i = done; i < per_size; ++i)
                msgs.push_back({buffers.data() + i * (size + 1), size + 1});
            std::uint32_t got = 0;
            int32_t s = in.recv_batch_raw(msgs.data(), static_cast<std::uint32_t>(msgs.size()),
                                          &got, wait_ns);
            ++calls;
            if (s != IPCB_OK || got == 0 || got > msgs.size())
                return verdict(false, fmt::format("recv_batch for {} messages: {} received, {}",
                                                  msgs.size(), got, failure_text(in, s)));
            for (std::uint32_t i = 0; i < got; ++i)
                if (problem.empty())
                    problem = mismatch(static_cast<const unsigned char *>(msgs[i].data),
                                       msgs[i].len, size, index + done + i);
            done += got;
        }
        index += per_size;
    }
    if (!problem.empty()) return verdict(false, problem);
    return verdict(true, fmt::format("{} messages checked byte for byte{}", index,
                                     calls ? fmt::format(", {} recv_batch calls", calls) : ""));
}

[[noreturn]] json crash_holding(plugin::transport_endpoint &ep, const json &job) {
    const std::size_t size = job.at("size");
    ipcb_msg m[1];
    std::uint32_t got = 0;
    if (job.at("side") == "sender") {
        std::vector<unsigned char> first(size);
        fill(first.data(), size, 0);
        ep.send_raw(first.data(), size, wait_ns);
        if (ep.has_zero_copy_send()) ep.borrow_raw(size, 1, m, &got, wait_ns);
    } else if (ep.has_zero_copy_recv() && !job.value("stream", false)) {
        ep.take_raw(1, m, &got, wait_ns);
    } else {
        std::vector<unsigned char> buf(size);
        std::size_t n = 0;
        ep.recv_raw(buf.data(), size, &n, wait_ns);
    }
    platform::die_without_last_words();  // no close, no unlink, no atexit: what a crash leaves
}

}  // namespace ipcbench::conformance
