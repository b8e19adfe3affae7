/*
 * A complete ipcbench transport in plain C: "mytransport.stream", a Unix stream socket.
 * Copy it, rename MY_PLUGIN_NAME, and replace the socket calls with your transport's.
 *
 * The contract is sdk/include/ipcbench/transport.h; the essentials:
 *  - the host runs the two sides in two processes: a CREATOR that creates the object and
 *    publishes an address, and a CONNECTOR that reaches it with that address;
 *  - open() never waits for the peer; connect() does, bounded by its timeout;
 *  - send() sends everything or fails; recv() returns 1..cap bytes (a stream) or one whole
 *    message (a message transport), or a status: IPCB_E_TIMEOUT, IPCB_E_CLOSED, ...;
 *  - every failure fills the host's ipcb_error with a message that names the problem and fix;
 *  - close() releases everything, and the creator removes any name it created.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h" /* ipcb_fail(), ipcb_fail_errno() */
#include "ipcbench/transport.h"

#ifndef MY_PLUGIN_NAME
#define MY_PLUGIN_NAME "mytransport" /* also the prefix of every transport id */
#endif

/* The endpoint is yours: the host only ever holds a pointer to it. */
struct ipcb_endpoint {
    uint32_t role;
    int listen_fd; /* creator, until a peer connects */
    int fd;        /* the connected socket */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for `events` on fd; timeout_ns < 0 waits forever. */
static int32_t wait_fd(int fd, short events, int64_t timeout_ns, ipcb_error *error) {
    struct pollfd p;
    int ms = timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
    int rc;
    p.fd = fd;
    p.events = events;
    p.revents = 0;
    do rc = poll(&p, 1, ms);
    while (rc < 0 && errno == EINTR);
    if (rc == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
    if (rc < 0) return ipcb_fail_errno(error, errno, "poll");
    return IPCB_OK;
}

static void IPCB_CALL my_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->fd >= 0) close(ep->fd);
    if (ep->listen_fd >= 0) close(ep->listen_fd);
    if (ep->role == IPCB_ROLE_CREATOR && ep->path[0]) unlink(ep->path); /* leave nothing */
    free(ep);
}

static int32_t IPCB_CALL my_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                 ipcb_error *error) {
    ipcb_endpoint *ep;
    struct sockaddr_un addr;
    static unsigned counter;
    /* This transport takes no options: reject unknown keys by name, never ignore them. */
    if (p->option_count > 0)
        return ipcb_fail(error, IPCB_E_UNKNOWN_OPTION, 0,
                         "unknown option '%s': " MY_PLUGIN_NAME ".stream takes none",
                         p->options[0].key);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->role = p->role;
    ep->fd = -1;
    ep->listen_fd = -1;
    if (p->role == IPCB_ROLE_CONNECTOR) {
        struct stat st;
        /* Check the address now, so a typo fails fast with a clear message. */
        if (p->address == NULL || strlen(p->address) >= sizeof ep->path ||
            stat(p->address, &st) != 0 || !S_ISSOCK(st.st_mode)) {
            my_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "address '%s' is not an existing Unix socket",
                             p->address ? p->address : "(null)");
        }
        strcpy(ep->path, p->address);
        *out = ep;
        return IPCB_OK;
    }
    /* The creator: a socket file in the host's private run directory (removed by the host
     * even if this process crashes), listening, but not waiting for anyone yet. */
    if ((size_t)snprintf(ep->path, sizeof ep->path, "%s/" MY_PLUGIN_NAME "-%ld-%u",
                         p->runtime_dir ? p->runtime_dir : "/tmp", (long)getpid(),
                         counter++) >= sizeof ep->path) {
        ep->path[0] = '\0';
        my_close(ep);
        return ipcb_fail(error, IPCB_E_INVALID, 0, "socket path too long; use a shorter TMPDIR");
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, ep->path);
    ep->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ep->listen_fd < 0 || bind(ep->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(ep->listen_fd, 1) != 0) {
        int e = errno;
        if (ep->listen_fd >= 0 && e == EADDRINUSE) ep->path[0] = '\0'; /* not ours */
        my_close(ep);
        return ipcb_fail_errno(error, e, "socket/bind/listen");
    }
    chmod(ep->path, 0600); /* private to this user */
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL my_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                           ipcb_error *error) {
    if (strlen(ep->path) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer too small");
    strcpy(buf, ep->path); /* any string your connector understands */
    return IPCB_OK;
}

static int32_t IPCB_CALL my_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    if (ep->role == IPCB_ROLE_CREATOR) {
        int32_t s = wait_fd(ep->listen_fd, POLLIN, timeout_ns, error);
        if (s != IPCB_OK) return s;
        ep->fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (ep->fd < 0) return ipcb_fail_errno(error, errno, "accept");
        return IPCB_OK;
    } else {
        /* The creator may not be listening yet: retry until the deadline. */
        struct sockaddr_un addr;
        int64_t deadline = timeout_ns < 0 ? -1 : now_ns() + timeout_ns;
        memset(&addr, 0, sizeof addr);
        addr.sun_family = AF_UNIX;
        strcpy(addr.sun_path, ep->path);
        for (;;) {
            ep->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (ep->fd < 0) return ipcb_fail_errno(error, errno, "socket");
            if (connect(ep->fd, (struct sockaddr *)&addr, sizeof addr) == 0) return IPCB_OK;
            close(ep->fd);
            ep->fd = -1;
            if (deadline >= 0 && now_ns() > deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "connect to %s timed out", ep->path);
            usleep(1000);
        }
    }
}

static int32_t IPCB_CALL my_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                                 ipcb_error *error) {
    const char *p = (const char *)buf;
    if (timeout_ns >= 0) { /* IPCB_WAIT_FOREVER (-1) skips the poll: the fast path */
        int32_t s = wait_fd(ep->fd, POLLOUT, timeout_ns, error);
        if (s != IPCB_OK) return s;
    }
    while (len > 0) { /* a stream may take part of it: send all */
        ssize_t n = send(ep->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            return ipcb_fail(error, IPCB_E_CLOSED, errno, "the peer closed the connection");
        } else {
            return ipcb_fail_errno(error, errno, "send");
        }
    }
    return IPCB_OK;
}

static int32_t IPCB_CALL my_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                 int64_t timeout_ns, ipcb_error *error) {
    *len = 0;
    if (timeout_ns >= 0) {
        int32_t s = wait_fd(ep->fd, POLLIN, timeout_ns, error);
        if (s != IPCB_OK) return s;
    }
    for (;;) {
        ssize_t n = recv(ep->fd, buf, cap, 0);
        if (n > 0) {
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (n == 0) return ipcb_fail(error, IPCB_E_CLOSED, 0, "the peer closed the connection");
        if (errno != EINTR) return ipcb_fail_errno(error, errno, "recv");
    }
}

/* Removes what a crashed creator left: here the socket file (the host also removes its run
 * directory; a transport with names outside it, like a message queue, needs this most). */
static int32_t IPCB_CALL my_remove_address(const char *address, ipcb_error *error) {
    struct stat st;
    if (address != NULL && lstat(address, &st) == 0 && S_ISSOCK(st.st_mode) && unlink(address) != 0)
        return ipcb_fail_errno(error, errno, "unlink %s", address);
    return IPCB_OK;
}

static const ipcb_transport my_stream = {
    .struct_size = sizeof(ipcb_transport), /* always sizeof: the host reads what you built */
    .option_count = 0,
    .id = MY_PLUGIN_NAME ".stream",
    .description = "Unix stream socket (the SDK template)",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX |
            IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0, /* a stream: no limit of its own */
    .options = NULL,
    .open = my_open,
    .export_address = my_export_address,
    .connect = my_connect,
    .send = my_send,
    .recv = my_recv,
    .close = my_close,
    .query_settings = NULL, /* optional: report effective settings */
    .remove_address = my_remove_address,
    .get_extension = NULL,
};

static const ipcb_transport *const my_transports[] = {&my_stream};

static const ipcb_plugin my_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION, /* the header you compiled against */
    .name = MY_PLUGIN_NAME,
    .version = "0.1.0",
    .description = "template transport plugin",
    .transport_count = 1,
    .reserved0 = 0,
    .transports = my_transports,
    .shutdown = NULL,
};

/* The one exported symbol. Return NULL (with a message in *error) to refuse a host. */
IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &my_plugin;
}
