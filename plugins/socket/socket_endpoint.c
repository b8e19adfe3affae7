#define _GNU_SOURCE
#include "socket_endpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <poll.h>
#include <sys/stat.h>
#endif

#include "inet_address.h"
#include "ipcbench/error_format.h"
#include "posix_io.h"
#ifndef _WIN32
#include "private_path.h"
#endif
#include "socket_buffers.h"
#include "socket_compat.h"

#ifndef _WIN32
static unsigned socket_counter;
#endif

static int32_t parse_options(const ipcb_open_params *p, ipcb_endpoint *ep, int is_tcp,
                             ipcb_error *error) {
    const char *v;
    if ((v = plugin_option(p, "sndbuf")) != NULL && v[0] &&
        plugin_parse_bytes(v, (uint64_t)1 << 30, &ep->sndbuf) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option sndbuf=%s: expected a byte count such as 256K or 4M", v);
    if ((v = plugin_option(p, "rcvbuf")) != NULL && v[0] &&
        plugin_parse_bytes(v, (uint64_t)1 << 30, &ep->rcvbuf) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option rcvbuf=%s: expected a byte count such as 256K or 4M", v);
    ep->nodelay = -1;
    if (is_tcp) {
        ep->nodelay = 1;
        if ((v = plugin_option(p, "nodelay")) != NULL && plugin_parse_bool(v, &ep->nodelay) != 0)
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option nodelay=%s: expected 1 or 0 (on/off)", v);
        if ((v = plugin_option(p, "zerocopy")) != NULL && plugin_parse_bool(v, &ep->zerocopy) != 0)
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option zerocopy=%s: expected 1 or 0 (on/off)", v);
    }
    return IPCB_OK;
}

static int32_t apply_buffers(ipcb_endpoint *ep, int fd, ipcb_error *error) {
    return socket_set_buffers(fd, ep->sndbuf, ep->rcvbuf, error);
}

/* Seqpacket messages must fit the send buffer; streams have no such limit. */
static int32_t fit_message(ipcb_endpoint *ep, int fd, ipcb_error *error) {
    if (ep->type != SOCK_SEQPACKET) return IPCB_OK;
    return socket_fit_message(fd, ep->id, ep->max_message, ep->sndbuf != 0, error);
}

#ifndef _WIN32
static int32_t make_unix_path(ipcb_endpoint *ep, const char *runtime_dir, ipcb_error *error) {
    const char *dir;
    int32_t status =
        private_folder(runtime_dir, "sock", ep->owned_dir, sizeof ep->owned_dir, &dir, error);
    if (status != IPCB_OK) return status;
    return private_object_path(dir, "s", &socket_counter, ep->path, sizeof ep->path,
                               "the sun_path limit of a socket", error);
}
#endif

/* A connector only learns where to connect here; connect() does the rest. */
static int32_t open_connector(const ipcb_open_params *p, ipcb_endpoint *ep, int is_tcp,
                              ipcb_error *error) {
    if (is_tcp) {
        if (inet_address_parse(p->address, &ep->address, &ep->address_len) != 0)
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "%s address '%s' is not HOST:PORT with a numeric host "
                             "(127.0.0.1:5000, [::1]:5000)",
                             ep->id, p->address ? p->address : "(null)");
        ep->family = ep->address.ss_family;
        return IPCB_OK;
    }
#ifndef _WIN32
    return unix_address_parse(ep->id, p->address, &ep->address, &ep->address_len, error);
#else
    return IPCB_OK;
#endif
}

/* The TCP creator's listening socket, on the option bind, else the address the host gave, else
 * loopback with a port of the system's choice. */
static int32_t make_tcp_listener(const ipcb_open_params *p, ipcb_endpoint *ep, ipcb_error *error) {
    const char *bind_to = plugin_option(p, "bind");
    if (bind_to == NULL || bind_to[0] == '\0') bind_to = p->address;
    if (bind_to == NULL || bind_to[0] == '\0') bind_to = "127.0.0.1:0";
    if (inet_address_parse(bind_to, &ep->address, &ep->address_len) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option bind=%s: expected HOST:PORT with a numeric host, e.g. "
                         "127.0.0.1:0 or [::1]:0",
                         bind_to);
    ep->family = ep->address.ss_family;
    ep->listen_fd = (int)socket(ep->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ep->listen_fd < 0) return sock_fail(error, sock_errno(), "socket");
    sock_allow_rebind(ep->listen_fd);
    return IPCB_OK;
}

#ifndef _WIN32
/* A Unix creator's listening socket, on a private path (private_path.h). */
static int32_t make_unix_listener(const ipcb_open_params *p, ipcb_endpoint *ep, int type,
                                  ipcb_error *error) {
    struct sockaddr_un *un = (struct sockaddr_un *)&ep->address;
    const int32_t status = make_unix_path(ep, p->runtime_dir, error);
    if (status != IPCB_OK) return status;
    un->sun_family = AF_UNIX;
    strcpy(un->sun_path, ep->path);
    ep->address_len = sizeof *un;
    ep->listen_fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (ep->listen_fd < 0) return ipcb_fail_errno(error, errno, "socket");
    return IPCB_OK;
}
#endif

/* A creator binds and listens now and accepts in connect(). */
static int32_t open_creator(const ipcb_open_params *p, ipcb_endpoint *ep, int type, int is_tcp,
                            ipcb_error *error) {
#ifndef _WIN32
    int32_t status =
        is_tcp ? make_tcp_listener(p, ep, error) : make_unix_listener(p, ep, type, error);
#else
    int32_t status = make_tcp_listener(p, ep, error);
    (void)type;
    (void)is_tcp; /* socket.tcp only */
#endif
    if (status != IPCB_OK) return status;
    if ((status = apply_buffers(ep, ep->listen_fd, error)) != IPCB_OK) return status;
    if ((status = fit_message(ep, ep->listen_fd, error)) != IPCB_OK) return status;
    if (bind(ep->listen_fd, (struct sockaddr *)&ep->address, ep->address_len) != 0) {
        const int e = sock_errno();
        if (ep->family == AF_UNIX) ep->path[0] = '\0';
        return sock_fail(error, e, "bind");
    }
#ifndef _WIN32
    if (ep->family == AF_UNIX) chmod(ep->path, 0600);
#endif
    if (listen(ep->listen_fd, 4) != 0) return sock_fail(error, sock_errno(), "listen");
    ep->address_len = sizeof ep->address;
    getsockname(ep->listen_fd, (struct sockaddr *)&ep->address, &ep->address_len);
    return IPCB_OK;
}

int32_t socket_open(const ipcb_open_params *p, const char *id, int type, int is_tcp,
                    const ipcb_option_desc *options, uint32_t option_count, ipcb_endpoint **out,
                    ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if (p->role != IPCB_ROLE_CREATOR && p->role != IPCB_ROLE_CONNECTOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "role %u is neither creator nor connector",
                         p->role);
    if ((status = sock_startup(error)) != IPCB_OK) return status;
    status = plugin_check_option_keys(p, options, option_count, id, error);
    if (status != IPCB_OK) return status;
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->id = id;
    ep->type = type;
    ep->role = p->role;
    ep->fd = -1;
    ep->listen_fd = -1;
    ep->max_message = p->max_message_size;
    ep->host = p->host;
    ep->family = is_tcp ? AF_INET : AF_UNIX;
    status = parse_options(p, ep, is_tcp, error);
    if (status == IPCB_OK)
        status = p->role == IPCB_ROLE_CONNECTOR ? open_connector(p, ep, is_tcp, error)
                                                : open_creator(p, ep, type, is_tcp, error);
    if (status != IPCB_OK) {
        socket_close(ep);
        return status;
    }
    *out = ep;
    return IPCB_OK;
}

int32_t IPCB_CALL socket_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                        ipcb_error *error) {
    char text[160];
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    if (ep->family == AF_UNIX)
        snprintf(text, sizeof text, "%s", ep->path);
    else
        inet_address_format((struct sockaddr *)&ep->address, text, sizeof text);
    if (strlen(text) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer of %zu bytes is too small", cap);
    strcpy(buf, text);
    return IPCB_OK;
}

int32_t socket_tune_connected(ipcb_endpoint *ep, ipcb_error *error) {
    int32_t status = apply_buffers(ep, ep->fd, error);
    if (status != IPCB_OK) return status;
    if ((status = fit_message(ep, ep->fd, error)) != IPCB_OK) return status;
    if (ep->nodelay >= 0 && setsockopt(ep->fd, IPPROTO_TCP, TCP_NODELAY, (const char *)&ep->nodelay,
                                       sizeof ep->nodelay) != 0)
        return sock_fail(error, sock_errno(), "setsockopt(TCP_NODELAY)");
#ifndef _WIN32
    if (ep->zerocopy) return socket_enable_zerocopy(ep, error);
#endif
    return IPCB_OK;
}

static int32_t accept_peer(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    int32_t status = posix_wait_fd(ep->listen_fd, POLLIN, deadline, error);
    if (status == IPCB_E_TIMEOUT)
        return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s: no peer connected in time", ep->id);
    if (status != IPCB_OK) return status;
    ep->fd = sock_accept(ep->listen_fd);
    if (ep->fd < 0) return sock_fail(error, sock_errno(), "accept");
    /* One connection per endpoint: stop listening, and drop the socket file now that nobody
     * needs its name, so nothing is left behind whatever happens next. */
    sock_close(ep->listen_fd);
    ep->listen_fd = -1;
#ifndef _WIN32
    if (ep->family == AF_UNIX && ep->path[0]) {
        unlink(ep->path);
        ep->path[0] = '\0';
    }
#endif
    return socket_tune_connected(ep, error);
}

static int32_t connect_peer(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    for (;;) {
        int err = 0;
        socklen_t len = sizeof err;
        int fd = (int)socket(ep->family, ep->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) return sock_fail(error, sock_errno(), "socket");
        ep->fd = fd;
        sock_set_nonblocking(fd, 1);
        if (apply_buffers(ep, fd, error) != IPCB_OK) return IPCB_E_SYSTEM;
        if (connect(fd, (struct sockaddr *)&ep->address, ep->address_len) != 0) {
            err = sock_errno();
            if (err == SOCK_EINPROGRESS) {
                int32_t status = posix_wait_fd(fd, POLLOUT, deadline, error);
                if (status != IPCB_OK) {
                    if (status == IPCB_E_TIMEOUT)
                        return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s: connect timed out", ep->id);
                    return status;
                }
                getsockopt(fd, SOL_SOCKET, SO_ERROR, (char *)&err, &len);
            }
        }
        if (err == 0) break;
        sock_close(fd);
        ep->fd = -1;
        if (err != SOCK_ECONNREFUSED && err != ENOENT && err != SOCK_EAGAIN &&
            err != SOCK_ETIMEDOUT)
            return sock_fail(error, err, "%s: connect", ep->id);
        if (deadline >= 0 && posix_now_ns() >= deadline)
            return ipcb_fail(error, IPCB_E_TIMEOUT, err, "%s: connect timed out (%s)", ep->id,
                             sock_strerror(err));
        posix_pause_us(1000);
    }
    sock_set_nonblocking(ep->fd, 0);
    if (ep->binding.set) {
        int32_t status = socket_present_key(ep, deadline, error);
        if (status != IPCB_OK) return status;
    }
    return socket_tune_connected(ep, error);
}

int32_t IPCB_CALL socket_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    if (ep == NULL || ep->fd >= 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "connect needs an unconnected endpoint");
    if (ep->role == IPCB_ROLE_CREATOR)
        return ep->binding.set ? socket_accept_bound(ep, deadline, error)
                               : accept_peer(ep, deadline, error);
    return connect_peer(ep, deadline, error);
}

int32_t socket_failed(ipcb_endpoint *ep, int e, const char *what, ipcb_error *error) {
    if (SOCK_PEER_GONE(e))
        return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer closed the connection", ep->id);
    if (e == SOCK_EMSGSIZE)
        return ipcb_fail(error, IPCB_E_TOO_BIG, e, "%s: message larger than the socket allows",
                         ep->id);
    return sock_fail(error, e, "%s: %s", ep->id, what);
}

int32_t IPCB_CALL socket_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                              ipcb_error *error) {
    const char *p = (const char *)buf;
    if (ep == NULL || buf == NULL || len == 0 || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a connected endpoint and data");
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
#ifndef _WIN32
    if (ep->zerocopy) return socket_zerocopy_send(ep, buf, len, timeout_ns, error);
#endif
    while (len > 0) {
        const int chunk = len > 0x40000000u ? 0x40000000 : (int)len;
        sock_ssize_t n = send(ep->fd, p, chunk, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && sock_errno() == SOCK_EINTR) {
            continue;
        } else {
            return socket_failed(ep, sock_errno(), "send", error);
        }
    }
    return IPCB_OK;
}

int32_t IPCB_CALL socket_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                              int64_t timeout_ns, ipcb_error *error) {
    int flags = 0;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a connected endpoint and buffer");
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLIN, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
#ifndef _WIN32
    if (ep->type == SOCK_SEQPACKET) flags = MSG_TRUNC; /* returns the real length */
#endif
    return socket_recv_call(ep, buf, cap, len, flags, error);
}

int32_t socket_recv_call(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len, int flags,
                         ipcb_error *error) {
    for (;;) {
        sock_ssize_t n = recv(ep->fd, buf, cap > 0x40000000u ? 0x40000000 : (int)cap, flags);
        if (n > 0) {
            if ((size_t)n > cap)
                return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                                 "%s: message of %lld B does not fit the %zu-byte buffer", ep->id,
                                 (long long)n, cap);
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (n == 0)
            return ipcb_fail(error, IPCB_E_CLOSED, 0, "%s: the peer closed the connection", ep->id);
        if (sock_errno() == SOCK_EAGAIN) return IPCB_E_TIMEOUT; /* MSG_DONTWAIT: would block */
        if (sock_errno() != SOCK_EINTR) return socket_failed(ep, sock_errno(), "recv", error);
    }
}

void IPCB_CALL socket_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
#ifndef _WIN32
    socket_zerocopy_report(ep);
#endif
#ifdef IPCB_SOCKET_URING
    socket_uring_cancel(ep); /* the kernel must be done with the host's buffers first */
#elif defined(_WIN32)
    int settled = win_iocp_cancel(&ep->iocp);
#endif
    if (ep->fd >= 0) sock_close(ep->fd);
    if (ep->listen_fd >= 0) sock_close(ep->listen_fd);
#ifndef _WIN32
    if (ep->role == IPCB_ROLE_CREATOR && ep->family == AF_UNIX && ep->path[0]) unlink(ep->path);
    if (ep->owned_dir[0]) rmdir(ep->owned_dir);
#endif
#ifdef _WIN32
    if (!settled) { /* a cancelled transfer's packet still points into ep: it must stay valid */
        ep->fd = -1;
        ep->listen_fd = -1;
        return;
    }
#endif
    free(ep);
}

void IPCB_CALL socket_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context) {
    char value[32];
    int v = 0;
    socklen_t len = sizeof v;
    int fd;
    if (ep == NULL || sink == NULL) return;
    fd = ep->fd >= 0 ? ep->fd : ep->listen_fd;
    if (fd < 0) return;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, (char *)&v, &len) == 0) {
        snprintf(value, sizeof value, "%d", v);
        sink(context, "sndbuf", value);
    }
    len = sizeof v;
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, (char *)&v, &len) == 0) {
        snprintf(value, sizeof value, "%d", v);
        sink(context, "rcvbuf", value);
    }
    if (ep->nodelay >= 0) {
        len = sizeof v;
        if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, (char *)&v, &len) == 0)
            sink(context, "nodelay", v ? "1" : "0");
#ifndef _WIN32
        sink(context, "zerocopy", ep->zerocopy ? "1" : "0");
#endif
#ifdef TCP_MAXSEG
        len = sizeof v;
        if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, (char *)&v, &len) == 0) {
            snprintf(value, sizeof value, "%d", v);
            sink(context, "mss", value);
        }
#endif
    }
}

int32_t IPCB_CALL socket_remove_address(const char *address, ipcb_error *error) {
#ifdef _WIN32
    (void)address;
    (void)error;
    return IPCB_OK; /* TCP: nothing named */
#else
    struct stat st;
    if (address == NULL || address[0] != '/') return IPCB_OK; /* TCP: nothing named */
    if (lstat(address, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(address) != 0)
        return ipcb_fail_errno(error, errno, "unlink %s", address);
    return IPCB_OK;
#endif
}
