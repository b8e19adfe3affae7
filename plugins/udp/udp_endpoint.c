/* udp.inet and udp.unix: one datagram socket per side, connected to the peer after a small
 * handshake (the connector's hello tells the creator where to answer). Datagrams keep message
 * boundaries; udp.inet may drop, which the host counts. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inet_address.h"
#include "ipcbench/error_format.h"
#include "peer_binding.h"
#include "posix_io.h"
#include "socket_buffers.h"
#include "socket_compat.h"
#include "udp_endpoint.h"

#ifdef _WIN32
/* udp.inet only. Every non-blocking receive follows a wait, so MSG_DONTWAIT is not needed; a
 * datagram larger than the buffer fails with WSAEMSGSIZE instead of MSG_TRUNC's length; an ICMP
 * port unreachable shows as WSAECONNRESET. */
#define MSG_DONTWAIT 0
#define MSG_TRUNC 0
#define UDP_PEER_GONE(e) ((e) == WSAECONNRESET || (e) == WSAECONNREFUSED || (e) == WSAENOTCONN)
#define UDP_PATH_CAP 108
#else
#include <poll.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "batch_io.h"
#include "private_path.h"
#include "socket_readiness.h"
#define UDP_PEER_GONE(e) ((e) == ECONNREFUSED || (e) == ENOTCONN)
#define UDP_PATH_CAP sizeof(((struct sockaddr_un *)0)->sun_path)
#endif

/* Odd lengths the harness never uses for data. */
static const char hello_magic[] = "ipcb-udp-helo";
static const char ack_magic[] = "ipcb-udp-ack!";
#define MAGIC_LEN 13

#ifndef _WIN32
static unsigned udp_counter;
#endif

struct ipcb_endpoint {
    const char *id;
    int family;
    uint32_t role;
    int fd;
    int connected;
    struct sockaddr_storage peer; /* connector: the creator */
    socklen_t peer_len;
    char path[UDP_PATH_CAP]; /* AF_UNIX: our own socket file */
    char owned_dir[256];
    uint64_t sndbuf, rcvbuf, max_message;
    const ipcb_host *host;
    /* "ipcb.peer-binding/1" (udp.inet): the one peer whose bound hello the creator takes. */
    struct peer_binding binding;
    unsigned refusals; /* logged: the first few */
};

#define BOUND_HELLO_CAP (IPCB_UDP_BINDING_MAGIC_LEN + IPCB_BINDING_KEY_MAX)

/* A bound hello (IPCB_UDP_BINDING_MAGIC and the key) of this endpoint's binding. */
static int is_bound_hello(const ipcb_endpoint *ep, const void *data, size_t len) {
    return ep->binding.set &&
           peer_binding_presented(&ep->binding, IPCB_UDP_BINDING_MAGIC, IPCB_UDP_BINDING_MAGIC_LEN,
                                  (const unsigned char *)data, len);
}

static int32_t IPCB_CALL udp_bind_peer(ipcb_endpoint *ep, const char *peer_host, const uint8_t *key,
                                       uint32_t key_len, ipcb_error *error) {
    if (ep == NULL || ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "bind_peer needs an unconnected endpoint");
    if (ep->family != AF_INET && ep->family != AF_INET6)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0, "%s: only udp.inet binds to a peer", ep->id);
    return peer_binding_set(&ep->binding, ep->id, peer_host, key, key_len, error);
}

static const ipcb_peer_binding binding_extension = {
    .struct_size = sizeof(ipcb_peer_binding),
    .reserved0 = 0,
    .bind_peer = udp_bind_peer,
};

const void *IPCB_CALL udp_get_extension(const char *id) {
    if (id != NULL && strcmp(id, IPCB_EXT_PEER_BINDING) == 0) return &binding_extension;
    return NULL;
}

/* Whether a creator takes a datagram as its peer's hello: the plain one, or, bound, only the
 * bound hello from the peer's host (anything else is logged, the first few times, and dropped). */
static int takes_hello(ipcb_endpoint *ep, const char *buf, sock_ssize_t n,
                       const struct sockaddr *from) {
    if (!ep->binding.set) return n == MAGIC_LEN && memcmp(buf, hello_magic, MAGIC_LEN) == 0;
    if (peer_binding_host_matches(&ep->binding, from) && n > 0 &&
        is_bound_hello(ep, buf, (size_t)n))
        return 1;
    if (ep->refusals++ < 3)
        peer_binding_log_refusal(ep->host, ep->id, from,
                                 peer_binding_host_matches(&ep->binding, from)
                                     ? "its datagram is no hello with the case's key"
                                     : "not the peer's address");
    return 0;
}

static int32_t apply_buffers(ipcb_endpoint *ep, ipcb_error *error) {
    int32_t status = socket_set_buffers(ep->fd, ep->sndbuf, ep->rcvbuf, error);
    if (status != IPCB_OK || ep->family != AF_UNIX) return status;
    return socket_fit_message(ep->fd, ep->id, ep->max_message, ep->sndbuf != 0, error);
}

#ifndef _WIN32
static int32_t bind_unix(ipcb_endpoint *ep, const char *runtime_dir, const char *prefix,
                         ipcb_error *error) {
    struct sockaddr_un un;
    const char *dir;
    int32_t status =
        private_folder(runtime_dir, "udp", ep->owned_dir, sizeof ep->owned_dir, &dir, error);
    if (status != IPCB_OK) return status;
    status = private_object_path(dir, prefix, &udp_counter, ep->path, sizeof ep->path,
                                 "the sun_path limit of a socket", error);
    if (status != IPCB_OK) return status;
    memset(&un, 0, sizeof un);
    un.sun_family = AF_UNIX;
    strcpy(un.sun_path, ep->path);
    if (bind(ep->fd, (struct sockaddr *)&un, sizeof un) != 0) {
        int e = errno;
        ep->path[0] = '\0';
        return ipcb_fail_errno(error, e, "bind %s", un.sun_path);
    }
    chmod(ep->path, 0600);
    return IPCB_OK;
}
#endif

static int32_t parse_buffers(const ipcb_open_params *p, ipcb_endpoint *ep, ipcb_error *error) {
    const char *v;
    if ((v = plugin_option(p, "sndbuf")) != NULL && v[0] &&
        plugin_parse_bytes(v, (uint64_t)1 << 30, &ep->sndbuf) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0, "option sndbuf=%s: expected bytes", v);
    if ((v = plugin_option(p, "rcvbuf")) != NULL && v[0] &&
        plugin_parse_bytes(v, (uint64_t)1 << 30, &ep->rcvbuf) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0, "option rcvbuf=%s: expected bytes", v);
    return IPCB_OK;
}

/* Where the connector's datagrams go: a socket path (udp.unix) or HOST:PORT. */
static int32_t parse_peer(const ipcb_open_params *p, ipcb_endpoint *ep, int is_unix,
                          ipcb_error *error) {
#ifndef _WIN32
    if (is_unix) return unix_address_parse(ep->id, p->address, &ep->peer, &ep->peer_len, error);
#else
    (void)is_unix;
#endif
    if (inet_address_parse(p->address, &ep->peer, &ep->peer_len) != 0)
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                         "%s address '%s' is not HOST:PORT with a numeric host", ep->id,
                         p->address ? p->address : "(null)");
    ep->family = ep->peer.ss_family;
    return IPCB_OK;
}

/* The connector's socket, aimed at the creator once the handshake in connect() has run. */
static int32_t open_connector(const ipcb_open_params *p, ipcb_endpoint *ep, int is_unix,
                              ipcb_error *error) {
    int32_t status = parse_peer(p, ep, is_unix, error);
    if (status != IPCB_OK) return status;
    ep->fd = (int)socket(ep->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ep->fd < 0) return sock_fail(error, sock_errno(), "socket");
#ifndef _WIN32
    /* A Unix datagram socket needs a name of its own to be answered. */
    if (is_unix && (status = bind_unix(ep, p->runtime_dir, "dc", error)) != IPCB_OK) return status;
#endif
    return apply_buffers(ep, error);
}

/* The creator's socket, bound on the option bind, else the address the host gave, else
 * loopback with a port of the system's choice (udp.unix: a private path). */
static int32_t open_creator(const ipcb_open_params *p, ipcb_endpoint *ep, int is_unix,
                            ipcb_error *error) {
    struct sockaddr_storage local;
    socklen_t local_len = 0;
    const char *bind_to = plugin_option(p, "bind");
#ifndef _WIN32
    if (is_unix) {
        int32_t status;
        ep->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (ep->fd < 0) return ipcb_fail_errno(error, errno, "socket");
        if ((status = bind_unix(ep, p->runtime_dir, "d", error)) != IPCB_OK) return status;
        return apply_buffers(ep, error);
    }
#else
    (void)is_unix;
#endif
    if (bind_to == NULL || bind_to[0] == '\0') bind_to = p->address;
    if (bind_to == NULL || bind_to[0] == '\0') bind_to = "127.0.0.1:0";
    if (inet_address_parse(bind_to, &local, &local_len) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option bind=%s: expected HOST:PORT with a numeric host", bind_to);
    ep->family = local.ss_family;
    ep->fd = (int)socket(ep->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (ep->fd < 0) return sock_fail(error, sock_errno(), "socket");
    if (bind(ep->fd, (struct sockaddr *)&local, local_len) != 0)
        return sock_fail(error, sock_errno(), "bind %s", bind_to);
    return apply_buffers(ep, error);
}

int32_t udp_open(const ipcb_open_params *p, const char *id, int is_unix,
                 const ipcb_option_desc *options, uint32_t option_count, uint64_t max_size,
                 ipcb_endpoint **out, ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if ((status = plugin_check_option_keys(p, options, option_count, id, error)) != IPCB_OK)
        return status;
    if ((status = sock_startup(error)) != IPCB_OK) return status;
    if (max_size && p->max_message_size > max_size)
        return ipcb_fail(error, IPCB_E_TOO_BIG, EMSGSIZE,
                         "%s: a datagram carries at most %llu B, not %llu", id,
                         (unsigned long long)max_size, (unsigned long long)p->max_message_size);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->id = id;
    ep->role = p->role;
    ep->fd = -1;
    ep->max_message = p->max_message_size;
    ep->host = p->host;
    ep->family = is_unix ? AF_UNIX : AF_INET;
    status = parse_buffers(p, ep, error);
    if (status == IPCB_OK)
        status = p->role == IPCB_ROLE_CONNECTOR ? open_connector(p, ep, is_unix, error)
                                                : open_creator(p, ep, is_unix, error);
    if (status != IPCB_OK) {
        udp_close(ep);
        return status;
    }
    *out = ep;
    return IPCB_OK;
}

int32_t IPCB_CALL udp_export_address(ipcb_endpoint *ep, char *buf, size_t cap, ipcb_error *error) {
    char text[160];
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    if (ep->family == AF_UNIX) {
        snprintf(text, sizeof text, "%s", ep->path);
    } else {
        struct sockaddr_storage local;
        socklen_t len = sizeof local;
        getsockname(ep->fd, (struct sockaddr *)&local, &len);
        inet_address_format((struct sockaddr *)&local, text, sizeof text);
    }
    if (strlen(text) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer too small");
    strcpy(buf, text);
    return IPCB_OK;
}

/* What arrived before connect(): a connected socket takes datagrams from its peer only, but
 * those already queued stay, from whoever sent them. The peer sends data only after the ack,
 * so everything queued now is someone else's, or a repeated hello: dropped. */
static void drop_queued(int fd) {
    char *scrap = (char *)malloc(65536);
    int i;
    if (scrap == NULL) return;
    sock_set_nonblocking(fd, 1);
    for (i = 0; i < 65536 && recv(fd, scrap, 65536, 0) >= 0; ++i) {
    }
    sock_set_nonblocking(fd, 0);
    free(scrap);
}

/* The creator: waits for the connector's hello, then talks only to it. */
static int32_t accept_hello(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    char buf[BOUND_HELLO_CAP + 8];
    for (;;) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof from;
        sock_ssize_t n;
        /* In steps of 50 ms, as the connector says hello: under wine a wait can miss the
         * datagram's arrival on a busy machine, and a new wait sees it at once. */
        int64_t step = posix_deadline(50000000);
        int32_t status;
        if (deadline >= 0 && step > deadline) step = deadline;
        status = posix_wait_fd(ep->fd, POLLIN, step, error);
        if (status == IPCB_E_TIMEOUT && (deadline < 0 || posix_now_ns() < deadline)) continue;
        if (status != IPCB_OK) {
            if (status == IPCB_E_TIMEOUT)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s: no hello from the peer", ep->id);
            return status;
        }
        n = recvfrom(ep->fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &from_len);
        if (!takes_hello(ep, buf, n, (const struct sockaddr *)&from)) continue;
        if (connect(ep->fd, (struct sockaddr *)&from, from_len) != 0)
            return sock_fail(error, sock_errno(), "%s: connect to the peer", ep->id);
        drop_queued(ep->fd);
        if (send(ep->fd, ack_magic, MAGIC_LEN, 0) != MAGIC_LEN)
            return sock_fail(error, sock_errno(), "%s: send the handshake ack", ep->id);
        ep->connected = 1;
        return IPCB_OK;
    }
}

/* One wait for the ack after a hello: IPCB_OK once it came (connected), IPCB_E_TIMEOUT when it
 * has not yet, or the error. */
static int32_t await_ack(ipcb_endpoint *ep, int64_t step, ipcb_error *error) {
    char buf[64];
    sock_ssize_t n = -1;
    int32_t status = posix_wait_fd(ep->fd, POLLIN, step, error);
    if (status == IPCB_OK) {
        n = recv(ep->fd, buf, sizeof buf, MSG_DONTWAIT);
    } else if (status != IPCB_E_TIMEOUT) {
        return status;
    }
#ifdef _WIN32
    else {
        /* An unanswered hello's ICMP error arrives as WSAECONNRESET on the next call: read it
         * off, so the next wait means the peer; without waiting, for a blocking read here would
         * take the ack that comes just late and throw it away (the creator, connected, answers
         * no more hellos: the connector then waited forever). */
        sock_set_nonblocking(ep->fd, 1);
        n = recv(ep->fd, buf, sizeof buf, 0);
        sock_set_nonblocking(ep->fd, 0);
    }
#endif
    if (n == MAGIC_LEN && memcmp(buf, ack_magic, MAGIC_LEN) == 0) {
        ep->connected = 1;
        return IPCB_OK;
    }
    return IPCB_E_TIMEOUT;
}

/* The connector: says hello until acknowledged (a hello may be lost on a real network); bound,
 * the hello carries the key. */
static int32_t say_hello(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    unsigned char bound[BOUND_HELLO_CAP];
    const char *hello = hello_magic;
    size_t hello_len = MAGIC_LEN;
    if (connect(ep->fd, (struct sockaddr *)&ep->peer, ep->peer_len) != 0)
        return sock_fail(error, sock_errno(), "%s: connect", ep->id);
    if (ep->binding.set) {
        hello_len = peer_binding_hello(&ep->binding, IPCB_UDP_BINDING_MAGIC,
                                       IPCB_UDP_BINDING_MAGIC_LEN, bound, sizeof bound);
        hello = (const char *)bound;
    }
    for (;;) {
        int64_t step = posix_deadline(50000000);
        int32_t status;
        if (send(ep->fd, hello, (int)hello_len, 0) != (sock_ssize_t)hello_len &&
            !UDP_PEER_GONE(sock_errno()))
            return sock_fail(error, sock_errno(), "%s: send the handshake", ep->id);
        if (deadline >= 0 && step > deadline) step = deadline;
        status = await_ack(ep, step, error);
        if (status != IPCB_E_TIMEOUT) return status;
        if (deadline >= 0 && posix_now_ns() >= deadline)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s: the peer did not answer the hello",
                             ep->id);
    }
}

int32_t IPCB_CALL udp_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    const int64_t deadline = posix_deadline(timeout_ns);
    if (ep == NULL || ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "connect needs an unconnected endpoint");
    return ep->role == IPCB_ROLE_CREATOR ? accept_hello(ep, deadline, error)
                                         : say_hello(ep, deadline, error);
}

int32_t IPCB_CALL udp_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                           ipcb_error *error) {
    if (ep == NULL || buf == NULL || len == 0 || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a connected endpoint and data");
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    for (;;) {
        sock_ssize_t n = send(ep->fd, buf, (int)len, 0);
        int e;
        if (n == (sock_ssize_t)len) return IPCB_OK;
        if (n >= 0) return ipcb_fail(error, IPCB_E_SYSTEM, 0, "%s: short datagram send", ep->id);
        e = sock_errno();
        if (e == SOCK_EINTR) continue;
        /* Loopback reports an unreachable port at once; the peer socket is gone. */
        if (UDP_PEER_GONE(e))
            return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer socket is gone", ep->id);
        if (e == SOCK_EMSGSIZE)
            return ipcb_fail(error, IPCB_E_TOO_BIG, e, "%s: datagram of %llu B too large", ep->id,
                             (unsigned long long)len);
#ifdef ENOBUFS
        if (e == ENOBUFS) continue; /* transient on a busy host: try again */
#endif
        return sock_fail(error, e, "%s: send", ep->id);
    }
}

/* What udp_recv_once says for a datagram that is not the host's (handshake traffic, an empty
 * one): read again. */
#define UDP_AGAIN 1

/* One recv() with `flags`: IPCB_OK with *len, IPCB_E_TIMEOUT when MSG_DONTWAIT found nothing,
 * UDP_AGAIN for a datagram that is not data (answered if it was a repeated hello), or the
 * error. */
static int32_t udp_recv_once(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len, int flags,
                             ipcb_error *error) {
    const sock_ssize_t n = recv(ep->fd, buf, cap > 0x7fffffffu ? 0x7fffffff : (int)cap, flags);
    if (n < 0) {
        const int e = sock_errno();
        if (e == SOCK_EINTR) return UDP_AGAIN;
        if (e == SOCK_EAGAIN) return IPCB_E_TIMEOUT;
        if (UDP_PEER_GONE(e))
            return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer socket is gone", ep->id);
#ifdef _WIN32
        if (e == WSAEMSGSIZE)
            return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                             "%s: a datagram does not fit the %llu-byte buffer", ep->id,
                             (unsigned long long)cap);
#endif
        return sock_fail(error, e, "%s: recv", ep->id);
    }
    if (n == MAGIC_LEN && cap >= MAGIC_LEN) {
        /* A repeated hello (our ack was lost) or a late ack: handshake traffic, not data. */
        if (memcmp(buf, hello_magic, MAGIC_LEN) == 0) {
            if (send(ep->fd, ack_magic, MAGIC_LEN, 0) < 0) { /* the peer retries */
            }
            return UDP_AGAIN;
        }
        if (memcmp(buf, ack_magic, MAGIC_LEN) == 0) return UDP_AGAIN;
    }
    if (n > MAGIC_LEN && (size_t)n <= cap && is_bound_hello(ep, buf, (size_t)n)) {
        if (send(ep->fd, ack_magic, MAGIC_LEN, 0) < 0) { /* the peer retries */
        }
        return UDP_AGAIN;
    }
    if ((size_t)n > cap && ep->binding.set &&
        (size_t)n == IPCB_UDP_BINDING_MAGIC_LEN + ep->binding.key_len &&
        cap >= IPCB_UDP_BINDING_MAGIC_LEN &&
        memcmp(buf, IPCB_UDP_BINDING_MAGIC, IPCB_UDP_BINDING_MAGIC_LEN) == 0)
        return UDP_AGAIN; /* a late bound hello cut by a small buffer: handshake, not data */
    if ((size_t)n > cap)
        return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                         "%s: datagram of %lld B does not fit the %llu-byte buffer", ep->id,
                         (long long)n, (unsigned long long)cap);
    if (n == 0) return UDP_AGAIN; /* the harness never sends empty datagrams */
    *len = (size_t)n;
    return IPCB_OK;
}

int32_t IPCB_CALL udp_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                           int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a connected endpoint and buffer");
    for (;;) {
        int32_t status;
        if (timeout_ns >= 0) {
            status = posix_wait_fd(ep->fd, POLLIN, deadline, error);
            if (status != IPCB_OK) return status;
        }
        status = udp_recv_once(ep, buf, cap, len, MSG_TRUNC | (timeout_ns >= 0 ? MSG_DONTWAIT : 0),
                               error);
        if (status != UDP_AGAIN && status != IPCB_E_TIMEOUT) return status;
    }
}

#ifndef _WIN32
/* Readiness (ABI 1.2): the socket is the handle; one send/recv with MSG_DONTWAIT per call. */
int32_t IPCB_CALL udp_event_source(ipcb_endpoint *ep, ipcb_event_source *out, ipcb_error *error) {
    if (ep == NULL || out == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "event_source needs a connected endpoint");
    socket_event_source_of(ep->fd, out);
    return IPCB_OK;
}

int32_t IPCB_CALL udp_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                               ipcb_error *error) {
    if (sent != NULL) *sent = 0;
    if (ep == NULL || buf == NULL || len == 0 || sent == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "try_send needs a connected endpoint and data");
    const int e = socket_send_now(ep->fd, buf, len, 0, sent);
    if (e == 0 && *sent == len) return IPCB_OK;
    if (e == 0) {
        *sent = 0;
        return ipcb_fail(error, IPCB_E_SYSTEM, 0, "%s: short datagram send", ep->id);
    }
    /* ENOBUFS: transient on a busy host; the socket stays writable, so the host retries. */
    if (e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS) return IPCB_E_TIMEOUT;
    if (UDP_PEER_GONE(e))
        return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer socket is gone", ep->id);
    if (e == EMSGSIZE)
        return ipcb_fail(error, IPCB_E_TOO_BIG, e, "%s: datagram of %llu B too large", ep->id,
                         (unsigned long long)len);
    return sock_fail(error, e, "%s: send", ep->id);
}

int32_t IPCB_CALL udp_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                               ipcb_error *error) {
    int32_t status;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "try_recv needs a connected endpoint and buffer");
    do status = udp_recv_once(ep, buf, cap, len, MSG_TRUNC | MSG_DONTWAIT, error);
    while (status == UDP_AGAIN);
    return status;
}
#endif

#ifndef _WIN32
/* Batches (ABI 1.1): sendmmsg and recvmmsg, one system call for up to BATCH_IO_CHUNK
 * datagrams. Used by ipchost --batch N. */
int32_t IPCB_CALL udp_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                 uint32_t *sent, int64_t timeout_ns, ipcb_error *error) {
    int e;
    if (sent != NULL) *sent = 0;
    if (ep == NULL || msgs == NULL || sent == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send_batch needs a connected endpoint");
    if ((e = batch_check_messages(msgs, count, error)) != IPCB_OK) return e;
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    e = batch_sendmmsg(ep->fd, msgs, count, sent);
    if (e == ECONNREFUSED || e == ENOTCONN)
        return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer socket is gone", ep->id);
    if (e == EMSGSIZE)
        return ipcb_fail(error, IPCB_E_TOO_BIG, e, "%s: datagram %u of the batch is too large",
                         ep->id, *sent);
    return e ? ipcb_fail_errno(error, e, "%s: sendmmsg", ep->id) : IPCB_OK;
}

static int is_handshake(const ipcb_endpoint *ep, const ipcb_msg *m) {
    return (m->len == MAGIC_LEN && (memcmp(m->data, hello_magic, MAGIC_LEN) == 0 ||
                                    memcmp(m->data, ack_magic, MAGIC_LEN) == 0)) ||
           is_bound_hello(ep, m->data, (size_t)m->len);
}

int32_t IPCB_CALL udp_recv_batch(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t count,
                                 uint32_t *received, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    unsigned char truncated[BATCH_IO_CHUNK] = {0};
    uint64_t caps[BATCH_IO_CHUNK] = {0};
    uint32_t i, kept;
    if (received != NULL) *received = 0;
    if (ep == NULL || msgs == NULL || received == NULL || count == 0 || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv_batch needs a connected endpoint");
    if (count > BATCH_IO_CHUNK) count = BATCH_IO_CHUNK;
    for (i = 0; i < count; ++i) caps[i] = msgs[i].len;
    for (;;) {
        int n;
        if (timeout_ns >= 0) {
            int32_t status = posix_wait_fd(ep->fd, POLLIN, deadline, error);
            if (status != IPCB_OK) return status;
        }
        for (i = 0; i < count; ++i) msgs[i].len = caps[i];
        n = batch_recvmmsg(ep->fd, msgs, count, MSG_TRUNC | (timeout_ns >= 0 ? MSG_DONTWAIT : 0),
                           truncated);
        if (n < 0) {
            if (n == -EINTR || n == -EAGAIN) continue;
            if (n == -ECONNREFUSED)
                return ipcb_fail(error, IPCB_E_CLOSED, -n, "%s: the peer socket is gone", ep->id);
            return ipcb_fail_errno(error, -n, "%s: recvmmsg", ep->id);
        }
        /* Drop handshake repeats and empty datagrams, moving later data into their buffers. */
        for (i = 0, kept = 0; i < (uint32_t)n; ++i) {
            if (is_handshake(ep, &msgs[i]) && !truncated[i]) {
                if (memcmp(msgs[i].data, ack_magic, MAGIC_LEN) != 0 &&
                    send(ep->fd, ack_magic, MAGIC_LEN, 0) < 0) { /* the peer retries */
                }
                continue;
            }
            if (msgs[i].len == 0) continue;
            if (truncated[i] || msgs[i].len > caps[kept]) { /* the datagram is lost, as in recv */
                *received = kept;
                return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                                 "%s: datagram of %llu B does not fit its %llu-byte buffer", ep->id,
                                 (unsigned long long)msgs[i].len, (unsigned long long)caps[kept]);
            }
            if (kept != i) {
                memcpy(msgs[kept].data, msgs[i].data, (size_t)msgs[i].len);
                msgs[kept].len = msgs[i].len;
            }
            ++kept;
        }
        if (kept > 0) {
            *received = kept;
            return IPCB_OK;
        }
    }
}

#endif

void IPCB_CALL udp_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->fd >= 0) sock_close(ep->fd);
#ifndef _WIN32
    if (ep->path[0]) unlink(ep->path);
    if (ep->owned_dir[0]) rmdir(ep->owned_dir);
#endif
    free(ep);
}

void IPCB_CALL udp_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context) {
    char value[32];
    int v = 0;
    socklen_t len = sizeof v;
    if (ep == NULL || sink == NULL || ep->fd < 0) return;
    if (getsockopt(ep->fd, SOL_SOCKET, SO_SNDBUF, (char *)&v, &len) == 0) {
        snprintf(value, sizeof value, "%d", v);
        sink(context, "sndbuf", value);
    }
    len = sizeof v;
    if (getsockopt(ep->fd, SOL_SOCKET, SO_RCVBUF, (char *)&v, &len) == 0) {
        snprintf(value, sizeof value, "%d", v);
        sink(context, "rcvbuf", value);
    }
    if (ep->family == AF_UNIX) {
        long qlen = posix_read_proc_long("/proc/sys/net/unix/max_dgram_qlen");
        snprintf(value, sizeof value, "%ld", qlen);
        sink(context, "net.unix.max_dgram_qlen", value);
    }
}

int32_t IPCB_CALL udp_remove_address(const char *address, ipcb_error *error) {
#ifdef _WIN32
    (void)address;
    (void)error;
    return IPCB_OK; /* UDP: nothing named */
#else
    struct stat st;
    if (address == NULL || address[0] != '/') return IPCB_OK;
    if (lstat(address, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(address) != 0)
        return ipcb_fail_errno(error, errno, "unlink %s", address);
    return IPCB_OK;
#endif
}
