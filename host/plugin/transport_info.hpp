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

// A validated transport table, with copies of its static strings for reporting.
struct transport_info {
    const ipcb_transport *table = nullptr;
    std::string id;
    std::string description;
    std::string plugin_name;
    std::string plugin_version;
    std::uint64_t caps = 0;
    std::uint64_t max_message_size = 0;  // 0 = no limit of its own
    std::vector<option_info> options;
    std::filesystem::path library;

    bool has(std::uint64_t cap) const { return (caps & cap) != 0; }
};

// "stream,reliable,ordered,close-notify"
std::string describe_caps(std::uint64_t caps);

// The ABI 1.1 calls a transport table offers: "borrow/publish, take/release, send_batch,
// recv_batch", or "send/recv only" (a 1.0 plugin, or none of them).
std::string describe_data_path(const ipcb_transport &table);

}  // namespace ipcbench::plugin
