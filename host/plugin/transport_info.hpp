#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ipcbench/transport.h"

namespace ipcbench::plugin {

struct option_info {
    std::string key;
    std::string default_value;
    std::string help;
};

// The optional calls a table offers (ABI 1.1 and 1.2), in usable sets; all false for a 1.0
// plugin, whose table ends before them.
struct data_path_calls {
    bool zero_copy_send = false;  // borrow and publish
    bool zero_copy_recv = false;  // take and release
    bool send_batch = false;
    bool recv_batch = false;  // message transports only (a stream's batch is a larger recv)
    // ABI 1.2, event-driven I/O: all of a model's members present, or it is not offered.
    bool readiness = false;   // event_source, try_send, try_recv
    bool completion = false;  // cq_open, submit_send, submit_recv, cq_wait, cq_close
};
data_path_calls offered_calls(const ipcb_transport &table);

// A validated transport table, with copies of its static strings for reporting.
struct transport_info {
    const ipcb_transport *table = nullptr;  // null in the main process (metadata only)
    std::uint64_t table_size = 0;           // the table's struct_size: which ABI members it has
    std::string id;
    std::string description;
    std::string plugin_name;
    std::string plugin_version;
    std::uint64_t caps = 0;
    std::uint64_t max_message_size = 0;  // 0 = no limit of its own
    data_path_calls calls;
    std::vector<option_info> options;
    std::filesystem::path library;
    // platform::file_identity of the library when the scan checked and probed it: a worker
    // loads it only while it is still that file (plugin_loader: load_transport).
    std::string library_identity;

    bool has(std::uint64_t cap) const { return (caps & cap) != 0; }
};

// {"stream", "reliable", "ordered", "close-notify"}
std::vector<std::string> cap_names(std::uint64_t caps);
// "stream,reliable,ordered,close-notify"
std::string describe_caps(std::uint64_t caps);
// Every call the table offers by its transport.h name: {"send", "recv", "borrow", ...}.
std::vector<std::string> call_names(const data_path_calls &calls);

// The ABI 1.1 calls a transport table offers: "borrow/publish, take/release, send_batch,
// recv_batch", or "send/recv only" (a 1.0 plugin, or none of them).
std::string describe_data_path(const transport_info &transport);

// The event-driven I/O models a transport offers (ABI 1.2): "readiness, completion",
// "readiness", "completion", or "none (1 thread per endpoint)".
std::string describe_event_io(const data_path_calls &calls);

}  // namespace ipcbench::plugin
