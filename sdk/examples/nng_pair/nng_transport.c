/* nng.pair: nng (nanomsg-next-gen) PAIR v1 sockets over ipc://, a real third-party messaging
 * library driven through the ipcbench C ABI. Message boundaries, duplex, back-pressure (no
 * drops). The creator listens on ipc://<runtime_dir>/nng-<pid>-<n>; the connector dials it. */
#define _GNU_SOURCE
#include <nng/nng.h>
#include <nng/protocol/pair1/pair.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "ipcbench/transport.h"

static const char hello[] = "nng-hello";

struct ipcb_endpoint {
    uint32_t role;
    nng_socket sock;
    int open;
    char url[300];
    int64_t recv_timeout; /* last value set, to avoid an option call per message */
    int64_t send_timeout;
};

static int32_t nng_failure(ipcb_error *error, int rv, const char *what) {
    if (rv == NNG_ETIMEDOUT || rv == NNG_EAGAIN)
        return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s: timed out", what);
    if (rv == NNG_ECLOSED || rv == NNG_ECONNRESET || rv == NNG_ECONNSHUT)
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "%s: %s", what, nng_strerror(rv));
    return ipcb_fail(error, IPCB_E_SYSTEM, 0, "%s: %s", what, nng_strerror(rv));
}

static int32_t set_timeout(ipcb_endpoint *ep, const char *option, int64_t *cached,
                           int64_t timeout_ns, ipcb_error *error) {
    nng_duration ms = timeout_ns < 0 ? NNG_DURATION_INFINITE : (nng_duration)(timeout_ns / 1000000);
    int rv;
    if (*cached == timeout_ns) return IPCB_OK;
    if ((rv = nng_socket_set_ms(ep->sock, option, ms)) != 0)
        return nng_failure(error, rv, "nng_socket_set_ms");
    *cached = timeout_ns;
    return IPCB_OK;
}

static void IPCB_CALL pair_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->open) nng_close(ep->sock);
    if (ep->role == IPCB_ROLE_CREATOR && strncmp(ep->url, "ipc://", 6) == 0)
        unlink(ep->url + 6); /* nng removes it too; make sure */
    free(ep);
}

static int32_t IPCB_CALL pair_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                   ipcb_error *error) {
    static unsigned counter;
    ipcb_endpoint *ep;
    int rv;
    if (p->option_count > 0)
        return ipcb_fail(error, IPCB_E_UNKNOWN_OPTION, 0,
                         "unknown option '%s': nng.pair takes none", p->options[0].key);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "out of memory");
    ep->role = p->role;
    ep->recv_timeout = ep->send_timeout = -2;
    if (p->role == IPCB_ROLE_CONNECTOR) {
        if (p->address == NULL || strncmp(p->address, "ipc:///", 7) != 0 ||
            strlen(p->address) >= sizeof ep->url || access(p->address + 6, F_OK) != 0) {
            pair_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "nng.pair address '%s' is not an existing ipc:///path",
                             p->address ? p->address : "(null)");
        }
        strcpy(ep->url, p->address);
    } else {
        snprintf(ep->url, sizeof ep->url, "ipc://%s/nng-%ld-%u",
                 p->runtime_dir ? p->runtime_dir : "/tmp", (long)getpid(), counter++);
    }
    if ((rv = nng_pair1_open(&ep->sock)) != 0) {
        pair_close(ep);
        return nng_failure(error, rv, "nng_pair1_open");
    }
    ep->open = 1;
    if (p->max_message_size > 0)
        nng_socket_set_size(ep->sock, NNG_OPT_RECVMAXSZ, (size_t)p->max_message_size + 64);
    if (p->role == IPCB_ROLE_CREATOR && (rv = nng_listen(ep->sock, ep->url, NULL, 0)) != 0) {
        ep->url[0] = '\0';
        pair_close(ep);
        return nng_failure(error, rv, "nng_listen");
    }
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL pair_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                             ipcb_error *error) {
    if (strlen(ep->url) + 1 > cap) return ipcb_fail(error, IPCB_E_INVALID, 0, "buffer too small");
    strcpy(buf, ep->url);
    return IPCB_OK;
}

static int32_t IPCB_CALL pair_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                   int64_t timeout_ns, ipcb_error *error) {
    int32_t s = set_timeout(ep, NNG_OPT_SENDTIMEO, &ep->send_timeout, timeout_ns, error);
    int rv;
    if (s != IPCB_OK) return s;
    rv = nng_send(ep->sock, (void *)buf, len, timeout_ns == 0 ? NNG_FLAG_NONBLOCK : 0);
    return rv == 0 ? IPCB_OK : nng_failure(error, rv, "nng_send");
}

static int32_t IPCB_CALL pair_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                   int64_t timeout_ns, ipcb_error *error) {
    void *msg = NULL;
    size_t size = 0;
    int rv;
    int32_t s = set_timeout(ep, NNG_OPT_RECVTIMEO, &ep->recv_timeout, timeout_ns, error);
    *len = 0;
    if (s != IPCB_OK) return s;
    rv =
        nng_recv(ep->sock, &msg, &size, NNG_FLAG_ALLOC | (timeout_ns == 0 ? NNG_FLAG_NONBLOCK : 0));
    if (rv != 0) return nng_failure(error, rv, "nng_recv");
    if (size > cap) {
        nng_free(msg, size);
        return ipcb_fail(error, IPCB_E_TRUNCATED, 0, "message of %zu B exceeds %zu", size, cap);
    }
    memcpy(buf, msg, size);
    nng_free(msg, size);
    *len = size;
    return IPCB_OK;
}

/* The dialer retries until the listener is there, then both exchange a hello, so that the
 * first timed message does not wait for the connection. */
static int32_t IPCB_CALL pair_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    char buf[32];
    size_t n = 0;
    int32_t s;
    if (ep->role == IPCB_ROLE_CONNECTOR) {
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
            int rv = nng_dial(ep->sock, ep->url, NULL, 0);
            if (rv == 0) break;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (timeout_ns >= 0 &&
                (now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) >
                    timeout_ns)
                return nng_failure(error, rv, "nng_dial");
            usleep(1000);
        }
        if ((s = pair_send(ep, hello, sizeof hello, timeout_ns, error)) != IPCB_OK) return s;
        return pair_recv(ep, buf, sizeof buf, &n, timeout_ns, error);
    }
    if ((s = pair_recv(ep, buf, sizeof buf, &n, timeout_ns, error)) != IPCB_OK) return s;
    if (n != sizeof hello || memcmp(buf, hello, n) != 0)
        return ipcb_fail(error, IPCB_E_INTERNAL, 0, "unexpected handshake message");
    return pair_send(ep, hello, sizeof hello, timeout_ns, error);
}

static int32_t IPCB_CALL pair_remove_address(const char *address, ipcb_error *error) {
    (void)error;
    if (address != NULL && strncmp(address, "ipc:///", 7) == 0) unlink(address + 6);
    return IPCB_OK;
}

static const ipcb_transport pair_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = 0,
    .id = "nng.pair",
    .description = "nng PAIR v1 over ipc:// (libnng)",
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX,
    .max_message_size = 0,
    .options = NULL,
    .open = pair_open,
    .export_address = pair_export_address,
    .connect = pair_connect,
    .send = pair_send,
    .recv = pair_recv,
    .close = pair_close,
    .query_settings = NULL,
    .remove_address = pair_remove_address,
    .get_extension = NULL,
};

static const ipcb_transport *const transports[] = {&pair_transport};

static const ipcb_plugin plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "nng",
    .version = "1.0.0",
    .description = "nng (nanomsg-next-gen) transports",
    .transport_count = 1,
    .reserved0 = 0,
    .transports = transports,
    .shutdown = NULL,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &plugin;
}
