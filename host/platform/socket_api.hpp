#pragma once

// The BSD socket calls as each system spells them, for platform/stream_socket.cpp only: Winsock 2
// is the same API with other names for a handful of calls and error codes.

#ifdef _WIN32
#include <winsock2.h>
// (after winsock2.h)
#include <mstcpip.h>
#include <ws2tcpip.h>

namespace ipcbench::platform::native {
using socket_t = SOCKET;
using length_t = int;
constexpr socket_t invalid = INVALID_SOCKET;
constexpr int send_flags = 0;
constexpr short readable_events = POLLRDNORM;
constexpr short writable_events = POLLWRNORM;
inline int last_error() {
    return WSAGetLastError();
}
inline int close(socket_t s) {
    return closesocket(s);
}
inline int poll(WSAPOLLFD *fds, unsigned long n, int timeout_ms) {
    return WSAPoll(fds, n, timeout_ms);
}
using pollfd_t = WSAPOLLFD;
constexpr int e_interrupted = WSAEINTR;
constexpr int e_would_block = WSAEWOULDBLOCK;
constexpr int e_in_progress = WSAEWOULDBLOCK;  // a non-blocking connect under way
constexpr int e_timed_out = WSAETIMEDOUT;
inline bool peer_gone(int e) {
    return e == WSAECONNRESET || e == WSAECONNABORTED || e == WSAESHUTDOWN;
}
constexpr int shut_both = SD_BOTH;
constexpr int shut_send = SD_SEND;
}  // namespace ipcbench::platform::native
#else
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ipcbench::platform::native {
using socket_t = int;
using length_t = socklen_t;
constexpr socket_t invalid = -1;
constexpr int send_flags = MSG_NOSIGNAL;
constexpr short readable_events = POLLIN;
constexpr short writable_events = POLLOUT;
inline int last_error() {
    return errno;
}
inline int close(socket_t s) {
    return ::close(s);
}
inline int poll(pollfd *fds, nfds_t n, int timeout_ms) {
    return ::poll(fds, n, timeout_ms);
}
using pollfd_t = pollfd;
constexpr int e_interrupted = EINTR;
constexpr int e_would_block = EAGAIN;
constexpr int e_in_progress = EINPROGRESS;
constexpr int e_timed_out = ETIMEDOUT;
inline bool peer_gone(int e) {
    return e == EPIPE || e == ECONNRESET;
}
constexpr int shut_both = SHUT_RDWR;
constexpr int shut_send = SHUT_WR;
}  // namespace ipcbench::platform::native
#endif
