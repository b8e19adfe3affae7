#include "remote/tcp_endpoint.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ipcbench::remote {
namespace {

sockaddr_storage to_sockaddr(const host_port &hp, socklen_t &len) {
    sockaddr_storage ss{};
    auto *v4 = reinterpret_cast<sockaddr_in *>(&ss);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&ss);
    if (inet_pton(AF_INET, hp.host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<std::uint16_t>(hp.port));
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, hp.host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<std::uint16_t>(hp.port));
        len = sizeof *v6;
    } else {
        throw std::invalid_argument("'" + hp.host + "' is not a numeric IPv4 or IPv6 address");
    }
    return ss;
}

}  // namespace

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
    socklen_t len = 0;
    to_sockaddr(hp, len);  // validates the address
    return hp;
}

int listen_tcp(const host_port &where) {
    socklen_t len = 0;
    sockaddr_storage ss = to_sockaddr(where, len);
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0 || listen(fd, 8) != 0) {
        int e = errno;
        close(fd);
        throw std::runtime_error("cannot listen on " + where.text() + ": " + std::strerror(e));
    }
    return fd;
}

int connect_tcp(const host_port &where, double timeout_s) {
    socklen_t len = 0;
    sockaddr_storage ss = to_sockaddr(where, len);
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    int err = 0;
    if (connect(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
            pollfd pfd{fd, POLLOUT, 0};
            int rc = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
            socklen_t elen = sizeof err;
            if (rc == 1)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
            else
                err = ETIMEDOUT;
        }
    }
    if (err != 0) {
        close(fd);
        throw std::runtime_error("cannot connect to the agent at " + where.text() + ": " +
                                 std::strerror(err) +
                                 " (is `ipchost serve` running there, and the port open?)");
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

std::string peer_name(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&ss), &len) != 0) return "?";
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        auto *v4 = reinterpret_cast<sockaddr_in *>(&ss);
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        port = ntohs(v4->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        auto *v6 = reinterpret_cast<sockaddr_in6 *>(&ss);
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        port = ntohs(v6->sin6_port);
    }
    return host_port{host, port}.text();
}

}  // namespace ipcbench::remote
