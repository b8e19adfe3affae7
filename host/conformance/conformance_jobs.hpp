#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "plugin/transport_endpoint.hpp"

namespace ipcbench::conformance {

// The worker-side halves of the conformance checks. Each returns a JSON verdict:
// {"ok": bool, "detail": "..."} plus figures, and never waits without a bound.

// Sends job["sizes"] x job["per_size"] messages with a pattern that depends on size, index and
// offset; paced by job["pace_us"].
nlohmann::json payload_send(plugin::transport_endpoint &out, const nlohmann::json &job);
// Receives and checks them byte for byte; message transports must deliver each whole.
nlohmann::json payload_receive(plugin::transport_endpoint &in, const nlohmann::json &job);

// Sends one message of job["size"] bytes; the receiver offers a smaller buffer.
nlohmann::json truncation_send(plugin::transport_endpoint &out, const nlohmann::json &job);
nlohmann::json truncation_receive(plugin::transport_endpoint &in, const nlohmann::json &job);

// recv with job["timeout_ns"] while the peer sends nothing: must time out, on time.
nlohmann::json timeout_receive(plugin::transport_endpoint &in, const nlohmann::json &job);

// send_timeout_jobs.cpp. Sends job["size"]-byte messages with job["timeout_ns"] while the peer
// does not read, until one times out (it must, on time), at most job["max_bytes"] or
// job["max_seconds"]; reports how many went ("sent"). A stream transport may say IPCB_E_SYSTEM
// for a timeout after part of a message (transport.h): then "partial" is true.
nlohmann::json send_timeout_fill(plugin::transport_endpoint &out, const nlohmann::json &job);
// Then receives until job["quiet_ns"] passes without data: "messages" (whole messages; for a
// stream, bytes / size) and "bytes", each message of a message transport checked for its size.
nlohmann::json drain_count(plugin::transport_endpoint &in, const nlohmann::json &job);

// ABI 1.2 readiness (readiness_jobs.cpp). The sender waits 300 ms, sends message 0, fills the
// transport with try_send until it would block (at most job["max_bytes"]), waits on its handle
// until the receiver drains, then sends the rest and an end marker; "sent" counts the messages.
// The receiver checks that try_recv on the empty transport would block, that the handle wakes
// it for message 0, then (after 1 s) drains through the handle byte for byte: "received".
// A transport whose event_source refuses these options passes with "refused".
nlohmann::json readiness_send(plugin::transport_endpoint &out, const nlohmann::json &job);
nlohmann::json readiness_receive(plugin::transport_endpoint &in, const nlohmann::json &job);

// ABI 1.2 completion (completion_jobs.cpp). The sender submits job["count"] numbered messages
// one at a time, each completing exactly once with its user_data; the receiver reassembles and
// checks them, then leaves a receive outstanding (it must not complete), closes the endpoint
// with it outstanding (promptly) and reaps it as IPCB_E_CLOSED, or finds it dropped.
nlohmann::json completion_send(plugin::transport_endpoint &out, const nlohmann::json &job);
nlohmann::json completion_receive(plugin::transport_endpoint &in, const nlohmann::json &job);

// recv with a long timeout while the peer closes: must end cleanly, not hang.
nlohmann::json close_wait(plugin::transport_endpoint &in, const nlohmann::json &job);

// ABI 1.1 (data_path_jobs.cpp). Zero-copy: borrow up to 4 slots, publish all but one; take up
// to 4 messages, release one: byte for byte, and a second borrow/take while one is out must be
// refused. Batches: one send_batch per size, recv_batch (or recv) on the other side.
nlohmann::json zero_copy_send(plugin::transport_endpoint &out, const nlohmann::json &job);
nlohmann::json zero_copy_receive(plugin::transport_endpoint &in, const nlohmann::json &job);
nlohmann::json batch_send(plugin::transport_endpoint &out, const nlohmann::json &job);
nlohmann::json batch_receive(plugin::transport_endpoint &in, const nlohmann::json &job);
// Sends a message (sender) and holds a borrowed slot, or holds a taken message (receiver), then
// kills its own process with SIGKILL: what a crash leaves behind is checked by the caller.
[[noreturn]] nlohmann::json crash_holding(plugin::transport_endpoint &ep,
                                          const nlohmann::json &job);

// Checks run inside one worker without a peer process: unknown option, invalid address, and
// repeated open/close (plus connected pairs in threads) leaving nothing behind.
nlohmann::json probe(const plugin::transport_info &transport, const nlohmann::json &job,
                     const std::string &runtime_dir);

// A message of `size` bytes whose header is `seq` and whose every other byte depends on seq and
// its position: what the readiness and completion checks send and expect back, byte for byte.
std::vector<unsigned char> numbered_message(std::size_t size, std::uint64_t seq);

}  // namespace ipcbench::conformance
