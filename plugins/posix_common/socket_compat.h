/* The BSD socket calls as Winsock 2 spells them, so socket.tcp and udp.inet build for Windows
 * from the same sources as on POSIX. A socket lives in an `int` on both (Windows documents that
 * its handles keep their value in 32 bits). Only what differs is here; the rest of the socket
 * API is the same on both systems. */
#ifndef IPCB_SOCKET_COMPAT_H
#define IPCB_SOCKET_COMPAT_H

#include "ipcbench/transport.h"

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>

#define SOCK_CLOEXEC 0 /* Winsock handles are not inherited unless asked */
#define SOCK_NONBLOCK 0
#define MSG_NOSIGNAL 0 /* no SIGPIPE on Windows */
#define SOCK_EINTR WSAEINTR
#define SOCK_EAGAIN WSAEWOULDBLOCK
#define SOCK_EINPROGRESS WSAEWOULDBLOCK /* a non-blocking connect under way */
#define SOCK_ECONNREFUSED WSAECONNREFUSED
#define SOCK_ETIMEDOUT WSAETIMEDOUT
#define SOCK_EMSGSIZE WSAEMSGSIZE
#define SOCK_ENOTCONN WSAENOTCONN
#define SOCK_PEER_GONE(e) \
    ((e) == WSAECONNRESET || (e) == WSAECONNABORTED || (e) == WSAESHUTDOWN || (e) == WSAENOTCONN)
#define sock_errno() WSAGetLastError()
#define sock_close(fd) closesocket((SOCKET)(fd))
#define sock_accept(fd) ((int)accept((SOCKET)(fd), NULL, NULL))
typedef int sock_ssize_t;
#else
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOCK_EINTR EINTR
#define SOCK_EAGAIN EAGAIN
#define SOCK_EINPROGRESS EINPROGRESS
#define SOCK_ECONNREFUSED ECONNREFUSED
#define SOCK_ETIMEDOUT ETIMEDOUT
#define SOCK_EMSGSIZE EMSGSIZE
#define SOCK_ENOTCONN ENOTCONN
#define SOCK_PEER_GONE(e) ((e) == EPIPE || (e) == ECONNRESET || (e) == ENOTCONN)
#define sock_errno() errno
#define sock_close(fd) close(fd)
#define sock_accept(fd) accept4((fd), NULL, NULL, SOCK_CLOEXEC)
typedef ssize_t sock_ssize_t;
#endif

/* Starts Winsock once per process (WSAStartup); nothing to do on POSIX. IPCB_OK or an error. */
int32_t sock_startup(ipcb_error *error);
/* Clears or sets non-blocking mode (fcntl O_NONBLOCK / ioctlsocket FIONBIO). */
void sock_set_nonblocking(int fd, int on);
/* Lets a listening socket bind a port in TIME_WAIT again (SO_REUSEADDR), and on Windows also
 * keeps every other socket off its port (SO_EXCLUSIVEADDRUSE: there SO_REUSEADDR would let
 * another process bind the same port). */
void sock_allow_rebind(int fd);
/* The system's words for a socket error code (strerror / FormatMessage). */
const char *sock_strerror(int code);
/* Like ipcb_fail_errno for a socket error code: "<message>: <reason>", IPCB_E_SYSTEM. */
int32_t sock_fail(ipcb_error *error, int code, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
