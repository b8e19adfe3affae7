#define _GNU_SOURCE
#include "pipe_endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"

const ipcb_option_desc pipe_options[PIPE_OPTION_COUNT] = {
    {"pipe_size", "",
     "pipe buffer size in bytes (suffixes K, M), set with F_SETPIPE_SZ and rounded up by the "
     "kernel to a power-of-two number of pages; empty keeps the kernel default (64 KiB); at most "
     "fs.pipe-max-size unless running as root"},
    {"splice", "none",
     "none: write() copies each message into the pipe; vmsplice: the sender's pages go into the "
     "pipe by reference (vmsplice) and the reader's read() is the only copy; pays off for large "
     "messages, and with ipchost's zero-copy path the message is written in place"},
};

int32_t pipe_parse_options(const ipcb_open_params *params, ipcb_endpoint *ep, ipcb_error *error) {
    uint32_t i;
    for (i = 0; i < params->option_count; ++i) {
        const ipcb_kv *kv = &params->options[i];
        if (strcmp(kv->key, "pipe_size") == 0) {
            if (kv->value[0] == '\0') continue;
            uint64_t bytes = 0;
            if (plugin_parse_bytes(kv->value, (uint64_t)1 << 30, &bytes) != 0)
                return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                                 "option pipe_size=%s: expected a byte count from 1 to 1G, "
                                 "for example 1M",
                                 kv->value);
            ep->requested_pipe_size = (long)bytes;
        } else if (strcmp(kv->key, "splice") == 0) {
            if (strcmp(kv->value, "vmsplice") == 0)
                ep->vmsplice = 1;
            else if (kv->value[0] != '\0' && strcmp(kv->value, "none") != 0)
                return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                                 "option splice=%s: expected none or vmsplice", kv->value);
        } else {
            return ipcb_fail(
                error, IPCB_E_UNKNOWN_OPTION, 0,
                "unknown option '%s' for the pipe transports; known: pipe_size, splice", kv->key);
        }
    }
    return IPCB_OK;
}

int32_t pipe_endpoint_alloc(const ipcb_open_params *params, int kind, ipcb_endpoint **out,
                            ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    if (params->direction != IPCB_DIR_SEND && params->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "a pipe carries data one way: open it with IPCB_DIR_SEND or "
                         "IPCB_DIR_RECV, not both");
    if (params->role != IPCB_ROLE_CREATOR && params->role != IPCB_ROLE_CONNECTOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "role %u is neither creator nor connector",
                         params->role);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->kind = kind;
    ep->role = params->role;
    ep->direction = params->direction;
    ep->fd = -1;
    ep->spare_fd = -1;
    ep->pool_fd = -1;
    ep->max_message = params->max_message_size;
    status = pipe_parse_options(params, ep, error);
    if (status != IPCB_OK) {
        free(ep);
        return status;
    }
    *out = ep;
    return IPCB_OK;
}

int32_t pipe_apply_size(ipcb_endpoint *ep, int fd, ipcb_error *error) {
    if (ep->requested_pipe_size > 0 && fcntl(fd, F_SETPIPE_SZ, (int)ep->requested_pipe_size) < 0) {
        int e = errno;
        if (e == EPERM || e == EINVAL)
            return ipcb_fail(error, IPCB_E_BAD_OPTION, e,
                             "option pipe_size=%ld exceeds fs.pipe-max-size=%ld; raise it with "
                             "'sysctl -w fs.pipe-max-size=%ld' or ask for less",
                             ep->requested_pipe_size,
                             posix_read_proc_long("/proc/sys/fs/pipe-max-size"),
                             ep->requested_pipe_size);
        return ipcb_fail_errno(error, e, "F_SETPIPE_SZ(%ld)", ep->requested_pipe_size);
    }
    ep->effective_pipe_size = fcntl(fd, F_GETPIPE_SZ);
    return IPCB_OK;
}

int32_t pipe_set_blocking(int fd, ipcb_error *error) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
        return ipcb_fail_errno(error, errno, "fcntl(O_NONBLOCK)");
    return IPCB_OK;
}

#define PIPE_HELLO 'H'

int32_t pipe_send_hello(int fd, ipcb_error *error) {
    const char hello = PIPE_HELLO;
    for (;;) {
        ssize_t n = write(fd, &hello, 1);
        if (n == 1) return IPCB_OK;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EPIPE)
            return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reader left during the handshake");
        return ipcb_fail_errno(error, errno, "writing the pipe handshake");
    }
}

int32_t pipe_recv_hello(int fd, int64_t deadline_ns, ipcb_error *error) {
    /* Not poll(): once a pipe has been polled, the kernel takes its wait-queue lock on every
     * later write (pipe->poll_usage), which would slow every message of the run that follows.
     * Nonblocking reads with a short, growing sleep instead. */
    long pause_us = 20;
    int32_t status;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return ipcb_fail_errno(error, errno, "fcntl(O_NONBLOCK) for the pipe handshake");
    for (;;) {
        char hello = 0;
        ssize_t n = read(fd, &hello, 1);
        if (n == 1) {
            status = hello == PIPE_HELLO
                         ? IPCB_OK
                         : ipcb_fail(error, IPCB_E_INTERNAL, 0,
                                     "pipe handshake: expected 'H', got byte 0x%02x",
                                     (unsigned)(unsigned char)hello);
            break;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            status = ipcb_fail_errno(error, errno, "reading the pipe handshake");
            break;
        }
        /* EAGAIN: a writer is there but has not written yet; 0: no writer yet. */
        if (deadline_ns >= 0 && posix_now_ns() >= deadline_ns) {
            status = ipcb_fail(error, IPCB_E_TIMEOUT, 0,
                               "timed out waiting for the writer to attach to the pipe");
            break;
        }
        posix_pause_us(pause_us);
        if (pause_us < 1000) pause_us *= 2;
    }
    if (fcntl(fd, F_SETFL, flags) < 0 && status == IPCB_OK)
        status = ipcb_fail_errno(error, errno, "fcntl after the pipe handshake");
    return status;
}

int32_t IPCB_CALL pipe_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                            ipcb_error *error) {
    const char *p = (const char *)buf;
    size_t left = len;
    if (ep == NULL || buf == NULL || len == 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs an endpoint and 1 or more bytes");
    if (ep->direction != IPCB_DIR_SEND || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "endpoint is not a connected sending end");
    if (ep->vmsplice) return pipe_vmsplice_send(ep, buf, len, timeout_ns, error);
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    while (left > 0) {
        ssize_t n = write(ep->fd, p, left);
        if (n > 0) {
            p += n;
            left -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) { /* O_NONBLOCK since event_source */
            int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
            if (status == IPCB_E_TIMEOUT && left < len)
                return ipcb_fail(error, IPCB_E_SYSTEM, 0,
                                 "send timed out after %zu of %zu bytes: the stream is unusable",
                                 len - left, len);
            if (status != IPCB_OK) return status;
        } else if (n < 0 && errno == EPIPE) {
            return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reading side closed the pipe");
        } else {
            return ipcb_fail_errno(error, errno, "write to pipe");
        }
    }
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                            int64_t timeout_ns, ipcb_error *error) {
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs an endpoint, a buffer and *len");
    if (ep->direction != IPCB_DIR_RECV || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "endpoint is not a connected receiving end");
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLIN, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    for (;;) {
        ssize_t n = read(ep->fd, buf, cap);
        if (n > 0) {
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (n == 0) return ipcb_fail(error, IPCB_E_CLOSED, 0, "the writing side closed the pipe");
        if (errno == EAGAIN) { /* O_NONBLOCK since event_source */
            int32_t status = posix_wait_fd(ep->fd, POLLIN, posix_deadline(timeout_ns), error);
            if (status != IPCB_OK) return status;
        } else if (errno != EINTR) {
            return ipcb_fail_errno(error, errno, "read from pipe");
        }
    }
}

/* Readiness (ABI 1.2). The pipe end turns O_NONBLOCK here, once, so that try_send and try_recv
 * are a single write() or read(); send and recv above wait with poll when they meet EAGAIN. */
int32_t IPCB_CALL pipe_event_source(ipcb_endpoint *ep, ipcb_event_source *out, ipcb_error *error) {
    int flags;
    if (ep == NULL || out == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "event_source needs a connected endpoint");
    if (ep->vmsplice)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "splice=vmsplice hands pages to the pipe in send and cannot stop halfway "
                         "without waiting; use splice=none to drive this pipe from an event loop");
    flags = fcntl(ep->fd, F_GETFL);
    if (flags < 0 || fcntl(ep->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return ipcb_fail_errno(error, errno, "fcntl(O_NONBLOCK) for the event source");
    out->kind = IPCB_HANDLE_FD;
    out->handle = ep->fd;
    out->recv_events = ep->direction == IPCB_DIR_RECV ? IPCB_EVENT_READABLE : 0;
    out->send_events = ep->direction == IPCB_DIR_SEND ? IPCB_EVENT_WRITABLE : 0;
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                                ipcb_error *error) {
    if (sent != NULL) *sent = 0;
    if (ep == NULL || buf == NULL || len == 0 || sent == NULL || ep->fd < 0 ||
        ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "try_send needs a connected sending end");
    for (;;) {
        const ssize_t n = write(ep->fd, buf, len);
        if (n > 0) {
            *sent = (size_t)n;
            return IPCB_OK;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return IPCB_E_TIMEOUT;
        if (n < 0 && errno == EPIPE)
            return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reading side closed the pipe");
        return ipcb_fail_errno(error, errno, "write to pipe");
    }
}

int32_t IPCB_CALL pipe_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                ipcb_error *error) {
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->fd < 0 ||
        ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "try_recv needs a connected receiving end");
    for (;;) {
        const ssize_t n = read(ep->fd, buf, cap);
        if (n > 0) {
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (n == 0) return ipcb_fail(error, IPCB_E_CLOSED, 0, "the writing side closed the pipe");
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return IPCB_E_TIMEOUT;
        return ipcb_fail_errno(error, errno, "read from pipe");
    }
}

void IPCB_CALL pipe_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->fd >= 0) close(ep->fd);
    if (ep->spare_fd >= 0) close(ep->spare_fd);
    pipe_vmsplice_free(ep);
    if (ep->kind == PIPE_KIND_FIFO && ep->role == IPCB_ROLE_CREATOR && ep->path[0] != '\0')
        unlink(ep->path);
    if (ep->owned_dir[0] != '\0') rmdir(ep->owned_dir);
    free(ep);
}

void IPCB_CALL pipe_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context) {
    char value[32];
    int fd;
    if (ep == NULL || sink == NULL) return;
    fd = ep->fd >= 0 ? ep->fd : ep->spare_fd;
    if (fd >= 0) {
        int size = fcntl(fd, F_GETPIPE_SZ);
        if (size > 0) ep->effective_pipe_size = size;
    }
    snprintf(value, sizeof value, "%d", ep->effective_pipe_size);
    sink(context, "pipe_size", value);
    sink(context, "splice", ep->vmsplice ? "vmsplice" : "none");
}
