#include "platform/stream_socket.hpp"

#include "platform/os_calls.hpp"
#include "platform/socket_api.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "platform/monotonic_clock.hpp"
#include "platform/signals.hpp"

namespace ipcbench::platform {
namespace {

native::socket_t native_of(socket_handle s) {
    return static_cast<native::socket_t>(s);
}

#ifdef _WIN32
std::string reason(int code) {
    char text[256] = "";
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                             static_cast<DWORD>(code), 0, text, sizeof text, nullptr);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = 0;
    return (n ? std::string(text) : std::string("unknown error")) + " (error " +
           std::to_string(code) + ")";
}
#else
std::string reason(int code) {
    return std::system_category().message(code);
}
#endif

[[noreturn]] void fail(const char *call) {
    throw socket_error(std::string(call) + ": " + reason(native::last_error()));
}

#ifdef _WIN32
// Winsock must be started once per process before its first call.
void ensure_started() {
    static const bool started = [] {
        WSADATA data;
        return WSAStartup(MAKEWORD(2, 2), &data) == 0;
    }();
    if (!started) throw socket_error("WSAStartup failed: Winsock is not available");
}
void set_blocking(native::socket_t s, bool blocking) {
    u_long nonblocking = blocking ? 0 : 1;
    ioctlsocket(s, FIONBIO, &nonblocking);
}
void not_inherited(native::socket_t s) {
    SetHandleInformation(reinterpret_cast<HANDLE>(s), HANDLE_FLAG_INHERIT, 0);
}
native::socket_t new_socket(int family, int type) {
    ensure_started();
    return WSASocketW(family, type, 0, nullptr, 0,
                      WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
}
#else
void ensure_started() {}
void set_blocking(native::socket_t s, bool blocking) {
    const int flags = fcntl(s, F_GETFL);
    fcntl(s, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}
void not_inherited(native::socket_t) {}  // made with SOCK_CLOEXEC
native::socket_t new_socket(int family, int type) {
    return ::socket(family, type | SOCK_CLOEXEC, 0);
}
#endif

sockaddr_storage to_sockaddr(const std::string &host, int port, native::length_t &len) {
    ensure_started();
    sockaddr_storage ss{};
    auto *v4 = reinterpret_cast<sockaddr_in *>(&ss);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&ss);
    if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<std::uint16_t>(port));
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<std::uint16_t>(port));
        len = sizeof *v6;
    } else {
        throw socket_error("'" + host + "' is not a numeric IPv4 or IPv6 address");
    }
    return ss;
}

socket_address address_of(const sockaddr_storage &ss) {
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        const auto *v4 = reinterpret_cast<const sockaddr_in *>(&ss);
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        port = ntohs(v4->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const auto *v6 = reinterpret_cast<const sockaddr_in6 *>(&ss);
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        port = ntohs(v6->sin6_port);
    }
    return {host, port};
}

socket_address local_address_of(native::socket_t s) {
    sockaddr_storage ss{};
    native::length_t len = sizeof ss;
    if (getsockname(s, reinterpret_cast<sockaddr *>(&ss), &len) != 0) return {"?", 0};
    return address_of(ss);
}

// poll() as the system has it. Windows: WSAPoll is not woken by Ctrl+C, so it waits in slices
// of 50 ms and looks at the interrupt flag between them; a list with no socket just sleeps.
int poll_in_slices(std::vector<native::pollfd_t> &fds, int timeout_ms) {
#ifdef _WIN32
    const std::int64_t deadline =
        timeout_ms < 0 ? -1 : now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    for (;;) {
        int slice = 50;
        if (deadline >= 0)
            slice = static_cast<int>(
                std::clamp<std::int64_t>((deadline - now_ns()) / 1'000'000, 0, 50));
        int rc = 0;
        if (fds.empty())
            Sleep(static_cast<DWORD>(slice));
        else
            rc = native::poll(fds.data(), static_cast<unsigned long>(fds.size()), slice);
        if (rc != 0 || interrupted() || (deadline >= 0 && now_ns() >= deadline)) return rc;
    }
#else
    return native::poll(fds.data(), fds.size(), timeout_ms);
#endif
}

}  // namespace

bool readiness::any() const {
    return std::find(ready.begin(), ready.end(), true) != ready.end();
}

bool send_all(socket_handle s, const void *data, std::size_t size, int stall_timeout_ms) {
    ensure_started();
    const char *p = static_cast<const char *>(data);
    std::size_t sent = 0;
    while (sent < size) {
        if (stall_timeout_ms < 0) {
            const int chunk = static_cast<int>(std::min<std::size_t>(size - sent, 1 << 30));
            const auto n =
                IPCBENCH_OS_CALL(send)(native_of(s), p + sent, chunk, native::send_flags);
            if (n > 0) {
                sent += static_cast<std::size_t>(n);
                continue;
            }
            const int e = native::last_error();
            if (n < 0 && e == native::e_interrupted) continue;
            if (n < 0 && native::peer_gone(e)) return false;
            throw socket_error("send: " + reason(e));
        }
        const io_result r = send_some(s, p + sent, size - sent);
        if (r.status == io_status::closed) return false;
        if (r.status == io_status::done) {
            sent += r.bytes;
            continue;
        }
        const poll_events ready = wait_ready({{s, false, true}}, stall_timeout_ms);
        if (!ready.writable[0] && !ready.interrupted)
            throw socket_error(fmt::format(
                "send: the peer took no data for {:g} s with {} bytes still to write (it stopped "
                "reading)",
                stall_timeout_ms / 1000.0, size - sent));
    }
    return true;
}

io_result send_some(socket_handle s, const void *data, std::size_t size) {
    ensure_started();
#ifdef _WIN32
    if (!wait_ready({{s, false, true}}, 0).writable[0]) return {io_status::would_block, 0};
    const int chunk = static_cast<int>(std::min<std::size_t>(size, 4096));
    const int flags = 0;
#else
    const int chunk = static_cast<int>(std::min<std::size_t>(size, 1 << 30));
    const int flags = native::send_flags | MSG_DONTWAIT;
#endif
    for (;;) {
        const auto n =
            IPCBENCH_OS_CALL(send)(native_of(s), static_cast<const char *>(data), chunk, flags);
        if (n >= 0) return {io_status::done, static_cast<std::size_t>(n)};
        const int e = native::last_error();
        if (e == native::e_interrupted) continue;
        if (e == native::e_would_block) return {io_status::would_block, 0};
        if (native::peer_gone(e)) return {io_status::closed, 0};
        throw socket_error("send: " + reason(e));
    }
}

io_result receive_some(socket_handle s, void *buffer, std::size_t size, bool wait) {
    ensure_started();
    const int chunk = static_cast<int>(std::min<std::size_t>(size, 1 << 30));
    for (;;) {
        if (!wait) {
            const auto ready = wait_readable({s}, 0);
            if (!ready.any()) return {io_status::would_block, 0};
        }
        const auto n = IPCBENCH_OS_CALL(recv)(native_of(s), static_cast<char *>(buffer), chunk, 0);
        if (n > 0) return {io_status::done, static_cast<std::size_t>(n)};
        if (n == 0) return {io_status::closed, 0};
        const int e = native::last_error();
        if (e == native::e_interrupted) continue;
        if (e == native::e_would_block) return {io_status::would_block, 0};
        if (native::peer_gone(e)) return {io_status::closed, 0};
        throw socket_error("recv: " + reason(e));
    }
}

readiness wait_readable(const std::vector<socket_handle> &sockets, int timeout_ms) {
    std::vector<poll_interest> interests;
    interests.reserve(sockets.size());
    for (auto s : sockets) interests.push_back({s, true, false});
    const poll_events got = wait_ready(interests, timeout_ms);
    return {got.interrupted, got.readable};
}

poll_events wait_ready(const std::vector<poll_interest> &interests, int timeout_ms) {
    ensure_started();
    std::vector<native::pollfd_t> fds;
    std::vector<std::size_t> index;  // fds[k] is interests[index[k]]
    fds.reserve(interests.size());
    for (std::size_t i = 0; i < interests.size(); ++i) {
        const auto &w = interests[i];
        if (!w.read && !w.write) continue;
        native::pollfd_t pfd{};
        pfd.fd = native_of(w.socket);
        pfd.events = static_cast<short>((w.read ? native::readable_events : 0) |
                                        (w.write ? native::writable_events : 0));
        fds.push_back(pfd);
        index.push_back(i);
    }
    poll_events out;
    out.readable.assign(interests.size(), false);
    out.writable.assign(interests.size(), false);
    const int rc = poll_in_slices(fds, timeout_ms);
    if (rc < 0) {
        if (native::last_error() == native::e_interrupted) {
            out.interrupted = true;
            return out;
        }
        fail("poll");
    }
    out.interrupted = interrupted();
    for (std::size_t k = 0; k < fds.size(); ++k) {
        const auto got = fds[k].revents;
        const auto &w = interests[index[k]];
        out.readable[index[k]] = w.read && (got & (native::readable_events | POLLHUP | POLLERR));
        out.writable[index[k]] = w.write && (got & (native::writable_events | POLLHUP | POLLERR));
    }
    return out;
}

void set_nonblocking(socket_handle s) {
    set_blocking(native_of(s), false);
}

void keep_alive(socket_handle s, double idle_s) {
    const auto fd = native_of(s);
    auto set = [fd](int level, int option, int value) {
        setsockopt(fd, level, option, reinterpret_cast<const char *>(&value), sizeof value);
    };
    const int idle = std::max(1, static_cast<int>(idle_s));
    set(SOL_SOCKET, SO_KEEPALIVE, 1);
#ifdef _WIN32
    // Windows: the probe times in milliseconds (the count is the system's, 10).
    tcp_keepalive values{1, static_cast<ULONG>(idle) * 1000,
                         static_cast<ULONG>(std::max(1, idle / 4)) * 1000};
    DWORD returned = 0;
    WSAIoctl(fd, SIO_KEEPALIVE_VALS, &values, sizeof values, nullptr, 0, &returned, nullptr,
             nullptr);
#endif
#ifdef TCP_KEEPIDLE
    set(IPPROTO_TCP, TCP_KEEPIDLE, idle);
#endif
#ifdef TCP_KEEPINTVL
    set(IPPROTO_TCP, TCP_KEEPINTVL, std::max(1, idle / 4));
#endif
#ifdef TCP_KEEPCNT
    set(IPPROTO_TCP, TCP_KEEPCNT, 3);
#endif
}

socket_address local_address(socket_handle s) {
    return local_address_of(native_of(s));
}

void shutdown_socket(socket_handle s) {
    if (s != no_socket) ::shutdown(native_of(s), native::shut_both);
}

void shutdown_sending(socket_handle s) {
    if (s != no_socket) ::shutdown(native_of(s), native::shut_send);
}

void close_socket(socket_handle s) {
    if (s != no_socket) native::close(native_of(s));
}

bool is_numeric_address(const std::string &host) {
    native::length_t len = 0;
    try {
        to_sockaddr(host, 0, len);
        return true;
    } catch (const socket_error &) {
        return false;
    }
}

std::string canonical_address(const std::string &host) {
    native::length_t len = 0;
    sockaddr_storage ss{};
    try {
        ss = to_sockaddr(host, 0, len);
    } catch (const socket_error &) {
        return "";
    }
    if (ss.ss_family == AF_INET6) {
        const auto *v6 = reinterpret_cast<const sockaddr_in6 *>(&ss);
        const auto *b = v6->sin6_addr.s6_addr;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (std::memcmp(b, mapped, sizeof mapped) == 0)
            return std::to_string(b[12]) + "." + std::to_string(b[13]) + "." +
                   std::to_string(b[14]) + "." + std::to_string(b[15]);
    }
    return address_of(ss).host;
}

std::vector<unsigned char> address_bytes(const std::string &host) {
    const std::string canonical = canonical_address(host);
    if (canonical.empty()) return {};
    native::length_t len = 0;
    const sockaddr_storage ss = to_sockaddr(canonical, 0, len);
    if (ss.ss_family == AF_INET) {
        const auto *b = reinterpret_cast<const unsigned char *>(
            &reinterpret_cast<const sockaddr_in *>(&ss)->sin_addr);
        return {b, b + 4};
    }
    const auto *b = reinterpret_cast<const sockaddr_in6 *>(&ss)->sin6_addr.s6_addr;
    return {b, b + 16};
}

std::vector<std::string> resolve_addresses(const std::string &name) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &found); rc != 0)
        throw socket_error("cannot resolve '" + name + "': " + gai_strerror(rc));
    std::vector<std::string> out;
    for (const addrinfo *a = found; a != nullptr; a = a->ai_next) {
        sockaddr_storage ss{};
        std::memcpy(&ss, a->ai_addr, std::min(sizeof ss, static_cast<std::size_t>(a->ai_addrlen)));
        out.push_back(canonical_address(address_of(ss).host));
    }
    freeaddrinfo(found);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

socket_handle listen_tcp(const std::string &host, int port, int backlog) {
    native::length_t len = 0;
    sockaddr_storage ss = to_sockaddr(host, port, len);
    const native::socket_t s = new_socket(ss.ss_family, SOCK_STREAM);
    if (s == native::invalid) fail("socket");
    int one = 1;
#ifdef _WIN32
    // Windows' SO_REUSEADDR lets another process steal a bound port; this forbids it.
    setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, reinterpret_cast<const char *>(&one),
               sizeof one);
#else
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
#endif
    if (bind(s, reinterpret_cast<sockaddr *>(&ss), len) != 0 || listen(s, backlog) != 0) {
        const int e = native::last_error();
        native::close(s);
        throw socket_error(reason(e));
    }
    return static_cast<socket_handle>(s);
}

namespace {

// How a non-blocking connect under way ends, within timeout_s: 0 or the socket's error. A
// signal is waited through with the time left (it was reported as a time-out at once); Ctrl+C
// ends the wait as itself; only the deadline is a time-out.
int connect_outcome(native::socket_t s, double timeout_s) {
    const std::int64_t deadline = now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
    for (;;) {
        native::pollfd_t pfd{};
        pfd.fd = s;
        pfd.events = POLLOUT;
        const auto left_ms = std::max<std::int64_t>(deadline - now_ns(), 0) / 1'000'000;
#ifdef _WIN32
        const int rc = native::poll(&pfd, 1, static_cast<int>(left_ms));
#else
        const int rc = IPCBENCH_OS_CALL(poll)(&pfd, 1, static_cast<int>(left_ms));
#endif
        if (rc == 0) return native::e_timed_out;
        if (rc > 0) {
            int err = 0;
            native::length_t elen = sizeof err;
            getsockopt(s, SOL_SOCKET, SO_ERROR, reinterpret_cast<char *>(&err), &elen);
            return err;
        }
        const int err = native::last_error();
        if (err != native::e_interrupted || interrupted()) return err;
    }
}

}  // namespace

socket_handle connect_tcp(const std::string &host, int port, double timeout_s) {
    native::length_t len = 0;
    sockaddr_storage ss = to_sockaddr(host, port, len);
    const native::socket_t s = new_socket(ss.ss_family, SOCK_STREAM);
    if (s == native::invalid) fail("socket");
    set_blocking(s, false);
    int err = 0;
    if (connect(s, reinterpret_cast<sockaddr *>(&ss), len) != 0) {
        err = native::last_error();
        if (err == native::e_in_progress) err = connect_outcome(s, timeout_s);
    }
    if (err != 0) {
        native::close(s);
        throw socket_error(reason(err));
    }
    set_blocking(s, true);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char *>(&one), sizeof one);
    return static_cast<socket_handle>(s);
}

socket_handle accept_connection(socket_handle listener) {
#ifdef _WIN32
    const native::socket_t s = ::accept(native_of(listener), nullptr, nullptr);
#else
    const native::socket_t s = ::accept4(native_of(listener), nullptr, nullptr, SOCK_CLOEXEC);
#endif
    if (s == native::invalid) return no_socket;
    not_inherited(s);
    return static_cast<socket_handle>(s);
}

socket_address peer_address(socket_handle s) {
    sockaddr_storage ss{};
    native::length_t len = sizeof ss;
    if (getpeername(native_of(s), reinterpret_cast<sockaddr *>(&ss), &len) != 0) return {"?", 0};
    return address_of(ss);
}

#ifdef _WIN32
std::string socket_for_process(socket_handle s, long pid) {
    ensure_started();
    WSAPROTOCOL_INFOW info{};
    if (WSADuplicateSocketW(native_of(s), static_cast<DWORD>(pid), &info) != 0)
        fail("WSADuplicateSocket");
    return std::string(reinterpret_cast<const char *>(&info), sizeof info);
}

socket_handle socket_from_token(const std::string &token) {
    ensure_started();
    if (token != "stdin")
        throw socket_error("control socket token '" + token + "': expected stdin");
    WSAPROTOCOL_INFOW info{};
    DWORD got = 0, n = 0;
    const HANDLE input = GetStdHandle(STD_INPUT_HANDLE);
    while (got < sizeof info &&
           ReadFile(input, reinterpret_cast<char *>(&info) + got, sizeof info - got, &n, nullptr) &&
           n > 0)
        got += n;
    if (got != sizeof info) throw socket_error("the control socket's description did not arrive");
    const native::socket_t s =
        WSASocketW(FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO, &info, 0,
                   WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
    if (s == native::invalid) fail("WSASocket from the parent's description");
    return static_cast<socket_handle>(s);
}
#else
std::string socket_for_process(socket_handle s, long) {
    return std::to_string(s);
}

socket_handle socket_from_token(const std::string &token) {
    char *end = nullptr;
    const long fd = std::strtol(token.c_str(), &end, 10);
    if (token.empty() || *end != '\0' || fd < 0)
        throw socket_error("control socket token '" + token + "': expected a descriptor number");
    return static_cast<socket_handle>(fd);
}
#endif

std::array<socket_handle, 2> connected_pair() {
#ifdef _WIN32
    const socket_handle listener = listen_tcp("127.0.0.1", 0);
    const socket_address where = local_address_of(native_of(listener));
    socket_handle ours = no_socket, theirs = no_socket;
    try {
        ours = connect_tcp(where.host, where.port, 10);
        theirs = accept_connection(listener);
        if (theirs == no_socket) fail("accept");
        // The accepted connection must be the one we made: its peer is our connecting end.
        const socket_address mine = local_address_of(native_of(ours));
        const socket_address peer = peer_address(theirs);
        if (mine.port != peer.port || mine.host != peer.host)
            throw socket_error("another process connected to the worker's control socket first");
    } catch (...) {
        close_socket(listener);
        close_socket(ours);
        close_socket(theirs);
        throw;
    }
    close_socket(listener);
    not_inherited(native_of(ours));
    not_inherited(native_of(theirs));
    return {ours, theirs};
#else
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) fail("socketpair");
    return {fds[0], fds[1]};
#endif
}

}  // namespace ipcbench::platform
