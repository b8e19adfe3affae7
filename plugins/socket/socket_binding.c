/* "ipcb.peer-binding/1" for socket.tcp: a creator that serves only its one peer. It keeps
 * listening until a connection from the peer's host presents the key (IPCB_BINDING_MAGIC and the
 * key, the first bytes on the stream), waiting on up to BOUND_CANDIDATES such connections at once
 * so that one that never speaks cannot keep the right one out; every other connection is closed
 * and logged. A connector writes the magic and the key right after connecting. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_endpoint.h"

#ifdef _WIN32
#define sock_poll WSAPoll
typedef WSAPOLLFD sock_pollfd;
#else
#include <poll.h>
#define sock_poll poll
typedef struct pollfd sock_pollfd;
#endif

#define BOUND_CANDIDATES 8
#define BOUND_HELLO (IPCB_BINDING_MAGIC_LEN + IPCB_BINDING_KEY_MAX)

struct candidate {
    int fd;
    size_t got;
    unsigned char hello[BOUND_HELLO];
    struct sockaddr_storage from;
};

static int32_t IPCB_CALL socket_bind_peer(ipcb_endpoint *ep, const char *peer_host,
                                          const uint8_t *key, uint32_t key_len, ipcb_error *error) {
    if (ep == NULL || ep->fd >= 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "bind_peer needs an unconnected endpoint");
    if (ep->nodelay < 0) /* not TCP: socket.unix and seqpacket live on one host */
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0, "%s: only socket.tcp binds to a peer",
                         ep->id);
    return peer_binding_set(&ep->binding, ep->id, peer_host, key, key_len, error);
}

static const ipcb_peer_binding binding_extension = {
    .struct_size = sizeof(ipcb_peer_binding),
    .reserved0 = 0,
    .bind_peer = socket_bind_peer,
};

const void *IPCB_CALL socket_get_extension(const char *id) {
    if (id != NULL && strcmp(id, IPCB_EXT_PEER_BINDING) == 0) return &binding_extension;
    return NULL;
}

static void drop(ipcb_endpoint *ep, struct candidate *c, const char *why) {
    if (ep->refusals++ < 3)
        peer_binding_log_refusal(ep->host, ep->id, (const struct sockaddr *)&c->from, why);
    sock_close(c->fd);
    c->fd = -1;
}

/* A new connection: kept as a candidate if it comes from the peer's host (the oldest candidate
 * makes room), closed otherwise. */
static void take_connection(ipcb_endpoint *ep, struct candidate *cands) {
    struct candidate fresh;
    socklen_t len = sizeof fresh.from;
    int i, slot = 0;
    memset(&fresh, 0, sizeof fresh);
#ifdef _WIN32
    fresh.fd = (int)accept((SOCKET)ep->listen_fd, (struct sockaddr *)&fresh.from, &len);
#else
    fresh.fd = accept4(ep->listen_fd, (struct sockaddr *)&fresh.from, &len, SOCK_CLOEXEC);
#endif
    if (fresh.fd < 0) return;
    if (!peer_binding_host_matches(&ep->binding, (const struct sockaddr *)&fresh.from)) {
        drop(ep, &fresh, "not the peer's address");
        return;
    }
    sock_set_nonblocking(fresh.fd, 1);
    for (i = 0; i < BOUND_CANDIDATES; ++i)
        if (cands[i].fd < 0) break;
    if (i == BOUND_CANDIDATES) {
        drop(ep, &cands[0], "it presented no key while others waited");
        memmove(cands, cands + 1, sizeof *cands * (BOUND_CANDIDATES - 1));
        i = BOUND_CANDIDATES - 1;
    }
    slot = i;
    cands[slot] = fresh;
}

/* Reads what a candidate sent of its key: 1 when it presented the right one, 0 while it may,
 * -1 when it was dropped. */
static int read_candidate(ipcb_endpoint *ep, struct candidate *c) {
    const size_t want = IPCB_BINDING_MAGIC_LEN + ep->binding.key_len;
    const sock_ssize_t n = recv(c->fd, (char *)c->hello + c->got, (int)(want - c->got), 0);
    if (n <= 0) {
        const int e = sock_errno();
        if (n < 0 && (e == SOCK_EAGAIN || e == SOCK_EINTR)) return 0;
        drop(ep, c, "it closed before presenting the key");
        return -1;
    }
    c->got += (size_t)n;
    if (c->got < want) return 0;
    if (peer_binding_presented(&ep->binding, IPCB_BINDING_MAGIC, IPCB_BINDING_MAGIC_LEN, c->hello,
                               c->got))
        return 1;
    drop(ep, c, "it presented another key");
    return -1;
}

/* The winner becomes the endpoint's connection; the listener and every other candidate go. */
static int32_t settle(ipcb_endpoint *ep, struct candidate *cands, int winner, ipcb_error *error) {
    int i;
    for (i = 0; i < BOUND_CANDIDATES; ++i)
        if (i != winner && cands[i].fd >= 0) drop(ep, &cands[i], "the peer arrived");
    sock_close(ep->listen_fd);
    ep->listen_fd = -1;
    ep->fd = cands[winner].fd;
    sock_set_nonblocking(ep->fd, 0);
    if (ep->refusals > 3 && ep->host != NULL && ep->host->log != NULL) {
        char line[160];
        snprintf(line, sizeof line, "%s: refused %u connections in all before the peer's", ep->id,
                 ep->refusals);
        ep->host->log(ep->host, IPCB_LOG_WARN, line);
    }
    return socket_tune_connected(ep, error);
}

int32_t socket_accept_bound(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    struct candidate cands[BOUND_CANDIDATES];
    int i;
    for (i = 0; i < BOUND_CANDIDATES; ++i) cands[i].fd = -1;
    for (;;) {
        sock_pollfd fds[1 + BOUND_CANDIDATES];
        int slot[1 + BOUND_CANDIDATES], n = 1, ready, wait_ms = 100;
        if (deadline >= 0) {
            const int64_t left = deadline - posix_now_ns();
            if (left <= 0) break;
            if (left / 1000000 + 1 < wait_ms) wait_ms = (int)(left / 1000000 + 1);
        }
        fds[0].fd = ep->listen_fd;
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        for (i = 0; i < BOUND_CANDIDATES; ++i) {
            if (cands[i].fd < 0) continue;
            fds[n].fd = cands[i].fd;
            fds[n].events = POLLIN;
            fds[n].revents = 0;
            slot[n++] = i;
        }
        ready = sock_poll(fds, (unsigned)n, wait_ms);
        if (ready < 0 && sock_errno() != SOCK_EINTR) return sock_fail(error, sock_errno(), "poll");
        for (i = 1; ready > 0 && i < n; ++i)
            if (fds[i].revents && read_candidate(ep, &cands[slot[i]]) == 1)
                return settle(ep, cands, slot[i], error);
        if (ready > 0 && fds[0].revents) take_connection(ep, cands);
    }
    for (i = 0; i < BOUND_CANDIDATES; ++i)
        if (cands[i].fd >= 0) drop(ep, &cands[i], "it presented no key in time");
    return ipcb_fail(error, IPCB_E_TIMEOUT, 0,
                     "%s: no connection from the peer presented the case's key in time", ep->id);
}

int32_t socket_present_key(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    unsigned char hello[BOUND_HELLO];
    const size_t len = peer_binding_hello(&ep->binding, IPCB_BINDING_MAGIC, IPCB_BINDING_MAGIC_LEN,
                                          hello, sizeof hello);
    size_t sent = 0;
    while (sent < len) {
        const sock_ssize_t n =
            send(ep->fd, (const char *)hello + sent, (int)(len - sent), MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && sock_errno() == SOCK_EINTR) continue;
        if (n < 0 && sock_errno() == SOCK_EAGAIN) {
            int32_t status = posix_wait_fd(ep->fd, POLLOUT, deadline, error);
            if (status != IPCB_OK) return status;
            continue;
        }
        return sock_fail(error, sock_errno(), "%s: present the binding key", ep->id);
    }
    return IPCB_OK;
}
