#include "remote/pending_handshakes.hpp"

#include <algorithm>
#include <map>

namespace ipcbench::remote {

std::size_t pending_handshakes::count_from(const std::string &source) const {
    return static_cast<std::size_t>(
        std::count_if(clients_.begin(), clients_.end(),
                      [&](const pending_client &c) { return c.source == source; }));
}

std::optional<pending_client> pending_handshakes::admit(pending_client client) {
    std::optional<pending_client> displaced;
    std::string victim_source;
    if (count_from(client.source) >= per_source_) {
        victim_source = client.source;
    } else if (clients_.size() >= total_) {
        std::map<std::string, std::size_t> held;
        for (const auto &c : clients_) ++held[c.source];
        // The source holding the most; among equals, the one whose oldest came first.
        std::size_t most = 0;
        for (const auto &c : clients_)
            if (held[c.source] > most) {
                most = held[c.source];
                victim_source = c.source;
            }
    }
    if (!victim_source.empty() || (clients_.size() >= total_ && !clients_.empty())) {
        auto it = std::find_if(clients_.begin(), clients_.end(), [&](const pending_client &c) {
            return victim_source.empty() || c.source == victim_source;
        });
        if (it != clients_.end()) {
            displaced = std::move(*it);
            clients_.erase(it);
        }
    }
    clients_.push_back(std::move(client));
    return displaced;
}

pending_client *pending_handshakes::find(platform::socket_handle fd) {
    auto it = std::find_if(clients_.begin(), clients_.end(),
                           [fd](const pending_client &c) { return c.fd == fd; });
    return it == clients_.end() ? nullptr : &*it;
}

std::optional<pending_client> pending_handshakes::take(platform::socket_handle fd) {
    auto it = std::find_if(clients_.begin(), clients_.end(),
                           [fd](const pending_client &c) { return c.fd == fd; });
    if (it == clients_.end()) return std::nullopt;
    pending_client out = std::move(*it);
    clients_.erase(it);
    return out;
}

std::vector<pending_client> pending_handshakes::expire(std::int64_t now) {
    std::vector<pending_client> out;
    for (auto it = clients_.begin(); it != clients_.end();) {
        if (it->deadline >= now) {
            ++it;
            continue;
        }
        out.push_back(std::move(*it));
        it = clients_.erase(it);
    }
    return out;
}

}  // namespace ipcbench::remote
