#include "conformance/conformance_jobs.hpp"

#include "conformance/leak_snapshot.hpp"

#include "conformance/check_verdict.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "platform/monotonic_clock.hpp"
#include "timed/message_header.hpp"

namespace ipcbench::conformance {
namespace {

using nlohmann::json;
using platform::now_ns;

unsigned char pattern(std::size_t size, std::size_t index, std::size_t offset) {
    if (offset == 0) return static_cast<unsigned char>(index);
    return static_cast<unsigned char>(offset * 31 + index * 7 + size);
}

}  // namespace

json payload_send(plugin::transport_endpoint &out, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    const long pace_us = job.at("pace_us");
    std::size_t sent = 0;
    for (std::size_t size : sizes) {
        std::vector<unsigned char> msg(size);
        for (std::size_t i = 0; i < per_size; ++i) {
            for (std::size_t o = 0; o < size; ++o) msg[o] = pattern(size, sent, o);
            int32_t s = out.send_raw(msg.data(), size, 10'000'000'000);
            if (s != IPCB_OK)
                return verdict(false, fmt::format("send of message {} ({} B) failed: {}", sent,
                                                  size, failure_text(out, s)));
            ++sent;
            if (pace_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(pace_us));
        }
    }
    return verdict(true, fmt::format("{} messages sent", sent));
}

json payload_receive(plugin::transport_endpoint &in, const json &job) {
    const auto sizes = job.at("sizes").get<std::vector<std::size_t>>();
    const std::size_t per_size = job.at("per_size");
    const bool stream = job.at("stream");
    std::size_t index = 0, reads = 0, bytes = 0;
    // The first problem is the verdict, but reading goes on to the end, so the sender is never
    // left blocked on a full transport.
    std::string problem;
    for (std::size_t size : sizes) {
        std::vector<unsigned char> msg(size + 1);
        for (std::size_t i = 0; i < per_size; ++i, ++index) {
            std::size_t got = 0;
            while (got < size) {
                std::size_t n = 0;
                // A message transport gets room for one byte more, so a merged or oversized
                // delivery shows up instead of being cut to fit.
                const std::size_t cap = stream ? size - got : size + 1;
                int32_t s = in.recv_raw(msg.data() + got, cap, &n, 10'000'000'000);
                ++reads;
                if (s != IPCB_OK) {
                    if (problem.empty())
                        problem = fmt::format("recv for message {} ({} B, {} received) failed: {}",
                                              index, size, got, failure_text(in, s));
                    return verdict(false, problem);
                }
                if (n == 0 || n > cap) {
                    return verdict(false, fmt::format("recv reported {} bytes into a {}-byte "
                                                      "buffer for message {}",
                                                      n, cap, index));
                }
                if (!stream && n != size && problem.empty())
                    problem = fmt::format(
                        "message boundaries broken: message {} of {} B arrived "
                        "as a recv of {} B",
                        index, size, n);
                got += n;
            }
            for (std::size_t o = 0; o < size && problem.empty(); ++o)
                if (msg[o] != pattern(size, index, o))
                    problem = fmt::format(
                        "message {} ({} B): byte {} is 0x{:02x}, expected "
                        "0x{:02x} (corrupted, lost or reordered data)",
                        index, size, o, msg[o], pattern(size, index, o));
            bytes += size;
        }
    }
    if (!problem.empty()) return verdict(false, problem);
    json v =
        verdict(true, fmt::format("{} messages, {} bytes checked byte for byte", index, bytes));
    v["messages"] = index;
    v["reads"] = reads;
    return v;
}

json truncation_send(plugin::transport_endpoint &out, const json &job) {
    const std::size_t size = job.at("size");
    std::vector<unsigned char> msg(size, 0xab);
    int32_t s = out.send_raw(msg.data(), size, 10'000'000'000);
    if (s != IPCB_OK) return verdict(false, "send failed: " + failure_text(out, s));
    return verdict(true, "sent");
}

json truncation_receive(plugin::transport_endpoint &in, const json &job) {
    const std::size_t size = job.at("size");
    std::vector<unsigned char> buf(size / 4);
    std::size_t n = 0;
    int32_t s = in.recv_raw(buf.data(), buf.size(), &n, 10'000'000'000);
    if (s == IPCB_E_TRUNCATED)
        return verdict(true, fmt::format("a {} B message into a {} B buffer: IPCB_E_TRUNCATED",
                                         size, buf.size()));
    return verdict(false, fmt::format("a {} B message into a {} B buffer returned {} with {} "
                                      "bytes, expected IPCB_E_TRUNCATED",
                                      size, buf.size(), ipcb_status_name(s), n));
}

json timeout_receive(plugin::transport_endpoint &in, const json &job) {
    const std::int64_t timeout = job.at("timeout_ns");
    unsigned char buf[64];
    std::size_t n = 0;
    const std::int64_t start = now_ns();
    int32_t s = in.recv_raw(buf, sizeof buf, &n, timeout);
    const double waited_ms = (now_ns() - start) / 1e6;
    const double asked_ms = timeout / 1e6;
    if (s != IPCB_E_TIMEOUT)
        return verdict(false, fmt::format("recv({:.0f} ms) with nothing sent returned {} after "
                                          "{:.1f} ms, expected IPCB_E_TIMEOUT",
                                          asked_ms, ipcb_status_name(s), waited_ms));
    if (waited_ms < asked_ms * 0.9 || waited_ms > asked_ms + 1000)
        return verdict(
            false, fmt::format("recv({:.0f} ms) timed out after {:.1f} ms", asked_ms, waited_ms));
    if (n != 0) return verdict(false, "a timed-out recv set *len to " + std::to_string(n));
    return verdict(true, fmt::format("recv({:.0f} ms) returned IPCB_E_TIMEOUT after {:.1f} ms",
                                     asked_ms, waited_ms));
}

json close_wait(plugin::transport_endpoint &in, const json &job) {
    const std::int64_t timeout = job.at("timeout_ns");
    const bool notify = job.at("close_notify");
    unsigned char buf[64];
    std::size_t n = 0;
    const std::int64_t start = now_ns();
    int32_t s = in.recv_raw(buf, sizeof buf, &n, timeout);
    const double waited_ms = (now_ns() - start) / 1e6;
    if (s == IPCB_E_CLOSED)
        return verdict(true, fmt::format("recv returned IPCB_E_CLOSED {:.0f} ms into the wait "
                                         "(the peer closed after ~200 ms)",
                                         waited_ms));
    if (s == IPCB_E_TIMEOUT && !notify)
        return verdict(true, fmt::format("recv timed out cleanly after {:.0f} ms (the transport "
                                         "does not claim close-notify)",
                                         waited_ms));
    return verdict(false, fmt::format("recv while the peer closed returned {} after {:.0f} ms{}",
                                      ipcb_status_name(s), waited_ms,
                                      notify ? ", but the transport claims close-notify: "
                                               "expected IPCB_E_CLOSED"
                                             : ""));
}

namespace {

// What every probe opens: the transport, its options, where it may make files.
struct probe_context {
    const plugin::transport_info &transport;
    std::map<std::string, std::string> options;
    std::string runtime_dir;
    std::uint64_t size;
    std::uint32_t creator_dir, connector_dir;

    plugin::transport_endpoint creator(const std::map<std::string, std::string> &with) const {
        return {transport, IPCB_ROLE_CREATOR, creator_dir, with, "", runtime_dir, size};
    }
};

json probe_max_size(const probe_context &p) {
    try {
        auto ep = p.creator(p.options);
        return verdict(true, "opens");
    } catch (const plugin::transport_error &e) {
        return verdict(false, e.what());
    }
}

json probe_unknown_option(const probe_context &p) {
    const std::string key = "ipcb_conformance_no_such_option";
    auto bad = p.options;
    bad[key] = "1";
    try {
        auto ep = p.creator(bad);
        return verdict(false, "open accepted an unknown option '" + key + "'");
    } catch (const plugin::transport_error &e) {
        std::string text = e.what();
        if (e.status != IPCB_E_UNKNOWN_OPTION)
            return verdict(false, fmt::format("open failed with {} instead of "
                                              "IPCB_E_UNKNOWN_OPTION: {}",
                                              ipcb_status_name(e.status), text));
        if (text.find(key) == std::string::npos)
            return verdict(false, "the error does not name the key: " + text);
        return verdict(true, "rejected by name: " + text);
    }
}

json probe_bad_address(const probe_context &p) {
    const std::string address = "no such address/ipcbench:99999";
    try {
        plugin::transport_endpoint ep(p.transport, IPCB_ROLE_CONNECTOR, p.connector_dir, p.options,
                                      address, p.runtime_dir, p.size);
        const std::int64_t start = now_ns();
        try {
            ep.connect(1'000'000'000);
        } catch (const plugin::transport_error &e) {
            const double waited_ms = (now_ns() - start) / 1e6;
            if (waited_ms > 2000)
                return verdict(false,
                               fmt::format("connect took {:.0f} ms with a 1 s timeout", waited_ms));
            return verdict(true, std::string("open accepted it, connect rejected it: ") + e.what());
        }
        return verdict(false, "open and connect both accepted an invalid address");
    } catch (const plugin::transport_error &e) {
        return verdict(true, std::string("rejected at open: ") + e.what());
    }
}

json probe_open_close(const probe_context &p, const json &job) {
    const int opens = job.value("opens", 1000);
    const int connections = job.value("connections", 50);
    // Warm up once so lazily created process-wide state is not counted as a leak.
    { auto warm = p.creator(p.options); }
    const auto before = leak_snapshot::take(p.runtime_dir);
    std::vector<std::string> addresses;  // what the checked endpoints made, by name
    addresses.reserve(static_cast<std::size_t>(std::max(0, opens + connections)));
    for (int i = 0; i < opens; ++i) addresses.push_back(p.creator(p.options).export_address());
    for (int i = 0; i < connections; ++i) {
        auto creator = std::make_unique<plugin::transport_endpoint>(
            p.transport, IPCB_ROLE_CREATOR, p.creator_dir, p.options, "", p.runtime_dir, p.size);
        addresses.push_back(creator->export_address());
        auto connector = std::make_unique<plugin::transport_endpoint>(
            p.transport, IPCB_ROLE_CONNECTOR, p.connector_dir, p.options, addresses.back(),
            p.runtime_dir, p.size);
        auto other = std::async(std::launch::async, [&] { connector->connect(5'000'000'000); });
        creator->connect(5'000'000'000);
        other.get();
    }
    // Libraries that tear down asynchronously (ZeroMQ's I/O thread) get up to 2 s.
    std::string leaked = before.leaked_in(leak_snapshot::take(p.runtime_dir), addresses);
    for (int i = 0; i < 40 && !leaked.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        leaked = before.leaked_in(leak_snapshot::take(p.runtime_dir), addresses);
    }
    if (!leaked.empty()) return verdict(false, "left behind: " + leaked);
    return verdict(true, fmt::format("{} opens and {} connections: no descriptor, queue, shm "
                                     "segment or file left",
                                     opens, connections));
}

}  // namespace

json probe(const plugin::transport_info &transport, const json &job,
           const std::string &runtime_dir) {
    const std::string check = job.at("check");
    const bool duplex = transport.has(IPCB_CAP_DUPLEX);
    const probe_context p{transport,
                          job.value("options", std::map<std::string, std::string>{}),
                          runtime_dir,
                          job.value("max_message_size", std::uint64_t{64}),
                          duplex ? IPCB_DIR_BOTH : IPCB_DIR_RECV,
                          duplex ? IPCB_DIR_BOTH : IPCB_DIR_SEND};
    if (check == "max-size") return probe_max_size(p);
    if (check == "unknown-option") return probe_unknown_option(p);
    if (check == "bad-address") return probe_bad_address(p);
    if (check == "open-close") return probe_open_close(p, job);
    return verdict(false, "unknown probe '" + check + "'");
}

std::vector<unsigned char> numbered_message(std::size_t size, std::uint64_t seq) {
    std::vector<unsigned char> m(size);
    timed::write_header(m.data(), seq);
    for (std::size_t i = 8; i < size; ++i) m[i] = static_cast<unsigned char>(seq * 31 + i);
    return m;
}

}  // namespace ipcbench::conformance
