#include "remote/pending_handshakes.hpp"

#include <algorithm>
#include <map>

namespace ipcbench::remote {

std::size_t pending_handshakes::count_from(const std::string &unit) const {
    return static_cast<std::size_t>(std::count_if(
        clients_.begin(), clients_.end(), [&](const pending_client &c) { return c.unit == unit; }));
}

std::optional<pending_client> pending_handshakes::admit(
    pending_client client, std::int64_t now,
    const std::function<bool(const pending_client &)> &speaking) {
    client.admitted_at = now;
    std::string victim_unit;
    if (count_from(client.unit) >= per_source_) {
        victim_unit = client.unit;
    } else if (clients_.size() >= total_) {
        std::map<std::string, std::size_t> held;
        for (const auto &c : clients_) ++held[c.unit];
        // The unit holding the most; among equals, the one whose oldest came first.
        std::size_t most = 0;
        for (const auto &c : clients_)
            if (held[c.unit] > most) {
                most = held[c.unit];
                victim_unit = c.unit;
            }
    } else {
        clients_.push_back(std::move(client));
        return std::nullopt;
    }
    const auto past_floor = [&](const pending_client &c) {
        if (c.hello_at != 0) return now - c.hello_at >= handshake_floor_ns;
        return now - c.admitted_at >= handshake_floor_ns || !speaking || !speaking(c);
    };
    auto it = std::find_if(clients_.begin(), clients_.end(), [&](const pending_client &c) {
        return c.unit == victim_unit && past_floor(c);
    });
    if (it == clients_.end()) return client;  // all of its unit's are within their floor
    std::optional<pending_client> displaced = std::move(*it);
    clients_.erase(it);
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
