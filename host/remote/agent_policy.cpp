#include "remote/agent_policy.hpp"

#include <stdexcept>

#include "remote/tcp_endpoint.hpp"
#include "text/printable_text.hpp"

namespace ipcbench::remote {

void check_agent_transport(const plugin::transport_info &transport) {
    if (!transport.has(IPCB_CAP_CROSS_HOST))
        throw std::runtime_error("transport " + transport.id +
                                 " cannot cross hosts; an agent runs only transports with the "
                                 "cross-host capability (ipchost --list shows them)");
}

void check_agent_address(const std::string &address, bool bind) {
    const std::string shown = text::printable(address, 80);
    const auto colon = address.rfind(':');
    const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
    const bool digits = !port.empty() && port.size() <= 5 &&
                        port.find_first_not_of("0123456789") == std::string::npos;
    const long number = digits ? std::stol(port) : -1;
    if (number < (bind ? 0 : 1) || number > 65535)
        throw std::runtime_error("address '" + shown + "' refused: it needs a port " +
                                 (bind ? "0" : "1") + "-65535");
    try {
        parse_host_port(address.substr(0, colon) + ":1", 0);  // the host: numeric, v4 or [v6]
    } catch (const std::exception &) {
        throw std::runtime_error("address '" + shown +
                                 "' refused: an agent binds and connects only to numeric "
                                 "network addresses HOST:PORT or [V6]:PORT");
    }
}

}  // namespace ipcbench::remote
