#include "remote/tcp_endpoint.hpp"

#include <cstdlib>
#include <stdexcept>

#include "platform/stream_socket.hpp"

namespace ipcbench::remote {

bool host_port::loopback() const {
    return host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost";
}

std::string host_port::text() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
}

host_port parse_host_port(const std::string &text, int default_port) {
    host_port hp;
    std::string port;
    if (!text.empty() && text[0] == '[') {
        auto close = text.find(']');
        if (close == std::string::npos)
            throw std::invalid_argument("'" + text + "': missing ']' after an IPv6 address");
        hp.host = text.substr(1, close - 1);
        if (close + 1 < text.size()) {
            if (text[close + 1] != ':')
                throw std::invalid_argument("'" + text + "': expected :PORT");
            port = text.substr(close + 2);
        }
    } else {
        auto colon = text.rfind(':');
        hp.host = text.substr(0, colon);
        if (colon != std::string::npos) port = text.substr(colon + 1);
    }
    if (hp.host.empty()) throw std::invalid_argument("'" + text + "': no host");
    hp.port = default_port;
    if (!port.empty()) {
        char *end = nullptr;
        long p = std::strtol(port.c_str(), &end, 10);
        if (*end || p < 1 || p > 65535)
            throw std::invalid_argument("'" + text + "': the port must be 1 to 65535");
        hp.port = static_cast<int>(p);
    }
    if (!platform::is_numeric_address(hp.host))
        throw std::invalid_argument("'" + hp.host + "' is not a numeric IPv4 or IPv6 address");
    return hp;
}

platform::socket_handle listen_tcp(const host_port &where, int backlog) {
    try {
        return platform::listen_tcp(where.host, where.port, backlog);
    } catch (const platform::socket_error &e) {
        throw std::runtime_error("cannot listen on " + where.text() + ": " + e.what());
    }
}

platform::socket_handle connect_tcp(const host_port &where, double timeout_s) {
    try {
        return platform::connect_tcp(where.host, where.port, timeout_s);
    } catch (const platform::socket_error &e) {
        throw std::runtime_error("cannot connect to the agent at " + where.text() + ": " +
                                 e.what() +
                                 " (is `ipchost serve` running there, and the port open?)");
    }
}

}  // namespace ipcbench::remote
