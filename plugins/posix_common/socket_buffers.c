#define _GNU_SOURCE
#include "socket_buffers.h"

#include <errno.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_compat.h"

#ifndef SO_SNDBUFFORCE /* Linux's root-only override of net.core.wmem_max; Windows has no cap */
#define SO_SNDBUFFORCE SO_SNDBUF
#define SO_RCVBUFFORCE SO_RCVBUF
#endif

static int set_size(int fd, int force_option, int option, uint64_t bytes) {
    int v = (int)bytes;
    if (setsockopt(fd, SOL_SOCKET, force_option, (const char *)&v, sizeof v) == 0) return 0;
    return setsockopt(fd, SOL_SOCKET, option, (const char *)&v, sizeof v);
}

int32_t socket_set_buffers(int fd, uint64_t sndbuf, uint64_t rcvbuf, ipcb_error *error) {
    if (sndbuf && set_size(fd, SO_SNDBUFFORCE, SO_SNDBUF, sndbuf) != 0)
        return sock_fail(error, sock_errno(), "setsockopt(SO_SNDBUF=%llu)",
                         (unsigned long long)sndbuf);
    if (rcvbuf && set_size(fd, SO_RCVBUFFORCE, SO_RCVBUF, rcvbuf) != 0)
        return sock_fail(error, sock_errno(), "setsockopt(SO_RCVBUF=%llu)",
                         (unsigned long long)rcvbuf);
    return IPCB_OK;
}

int32_t socket_fit_message(int fd, const char *transport_id, uint64_t message, int user_sndbuf,
                           ipcb_error *error) {
    int have = 0;
    socklen_t len = sizeof have;
    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, (char *)&have, &len);
    if ((uint64_t)have >= message + 64) return IPCB_OK;
    if (!user_sndbuf) {
        set_size(fd, SO_SNDBUFFORCE, SO_SNDBUF, message + 64);
        len = sizeof have;
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, (char *)&have, &len);
        if ((uint64_t)have >= message + 64) return IPCB_OK;
    }
    return ipcb_fail(error, IPCB_E_TOO_BIG, EMSGSIZE,
                     "%s: a message of %llu B does not fit the socket send buffer (%d B; the "
                     "limit is net.core.wmem_max=%ld for non-root users): raise it with sysctl -w "
                     "net.core.wmem_max=%llu, or use smaller messages",
                     transport_id, (unsigned long long)message, have,
                     posix_read_proc_long("/proc/sys/net/core/wmem_max"),
                     (unsigned long long)message * 2 + 64);
}
