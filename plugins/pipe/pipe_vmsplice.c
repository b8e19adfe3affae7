/* splice=vmsplice: the sender hands its pages to the pipe by reference (vmsplice without
 * SPLICE_F_GIFT), so the reader's read() is the only copy of the payload; with the host's
 * zero-copy path (borrow/publish) the message is even written in place, in those pages.
 *
 * The pages stay referenced by the pipe until the reader has read them, so they come from a pool
 * this endpoint owns: a memfd mapped twice back to back (a message never wraps), used as a ring
 * in the order bytes were spliced. Bytes still in the pipe (FIONREAD) are the ones in use; the
 * rest of the pool is free. Also: writev for batches. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "batch_io.h"
#include "ipcbench/error_format.h"
#include "pipe_endpoint.h"
#include "posix_io.h"

static size_t round_to_page(size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

static int32_t make_pool(ipcb_endpoint *ep, ipcb_error *error) {
    size_t pipe_bytes = ep->effective_pipe_size > 0 ? (size_t)ep->effective_pipe_size : 65536;
    unsigned char *base;
    /* Never more in flight than the pipe holds; twice that plus two messages leaves room. */
    ep->pool_size = round_to_page(2 * pipe_bytes + 2 * (size_t)ep->max_message);
    ep->pool_fd = memfd_create("ipcbench-pipe-vmsplice", MFD_CLOEXEC);
    if (ep->pool_fd < 0) return ipcb_fail_errno(error, errno, "pipe: memfd_create for vmsplice");
    if (ftruncate(ep->pool_fd, (off_t)ep->pool_size) != 0)
        return ipcb_fail_errno(error, errno, "pipe: ftruncate the vmsplice pool");
    base = (unsigned char *)mmap(NULL, 2 * ep->pool_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                                 -1, 0);
    if (base == MAP_FAILED) return ipcb_fail_errno(error, errno, "pipe: mmap the vmsplice pool");
    if (mmap(base, ep->pool_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ep->pool_fd, 0) ==
            MAP_FAILED ||
        mmap(base + ep->pool_size, ep->pool_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
             ep->pool_fd, 0) == MAP_FAILED) {
        int e = errno;
        munmap(base, 2 * ep->pool_size);
        return ipcb_fail_errno(error, e, "pipe: map the vmsplice pool twice");
    }
    ep->pool = base;
    return IPCB_OK;
}

void pipe_vmsplice_free(ipcb_endpoint *ep) {
    if (ep->pool != NULL) munmap(ep->pool, 2 * ep->pool_size);
    if (ep->pool_fd >= 0) close(ep->pool_fd);
    ep->pool = NULL;
    ep->pool_fd = -1;
}

/* Pool bytes not referenced by the pipe. */
static size_t pool_free(ipcb_endpoint *ep) {
    int in_pipe = 0;
    uint64_t in_flight;
    if (ioctl(ep->fd, FIONREAD, &in_pipe) != 0) in_pipe = (int)ep->pool_size;
    in_flight = (uint64_t)in_pipe < ep->spliced ? (uint64_t)in_pipe : ep->spliced;
    return in_flight >= ep->pool_size ? 0 : ep->pool_size - (size_t)in_flight;
}

int32_t IPCB_CALL pipe_borrow(ipcb_endpoint *ep, size_t len, uint32_t max_count, ipcb_msg *slots,
                              uint32_t *count, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    size_t n, i, start;
    int32_t s;
    if (count != NULL) *count = 0;
    if (ep == NULL || slots == NULL || count == NULL || len == 0 || max_count == 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "borrow needs an endpoint, len and slots");
    if (!ep->vmsplice)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "pipe: in-place writes need --opt splice=vmsplice");
    if (ep->direction != IPCB_DIR_SEND || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "borrow needs a connected sending end");
    if (ep->borrowed)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "borrow while %u borrowed slots are not published", ep->borrowed);
    if (len > ep->max_message)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                         "pipe: message of %zu B exceeds the %llu B the endpoint was opened for",
                         len, (unsigned long long)ep->max_message);
    if (ep->pool == NULL && (s = make_pool(ep, error)) != IPCB_OK) return s;
    for (;;) {
        n = pool_free(ep) / len;
        if (n > 0) break;
        /* The reader is behind: wait for the pipe to drain a little. */
        {
            struct pollfd p = {ep->fd, POLLOUT, 0};
            int64_t left = deadline >= 0 ? posix_left(deadline) : 1000000;
            if (left <= 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "pipe: timed out");
            if (poll(&p, 1, 1) > 0 && (p.revents & (POLLERR | POLLHUP)))
                return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reading side closed the pipe");
        }
    }
    if (n > max_count) n = max_count;
    start = (size_t)(ep->spliced % ep->pool_size);
    for (i = 0; i < n; ++i) {
        slots[i].data = ep->pool + start + i * len;
        slots[i].len = len;
    }
    ep->borrowed = (uint32_t)n;
    ep->borrowed_len = len;
    *count = (uint32_t)n;
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_publish(ipcb_endpoint *ep, uint32_t count, ipcb_error *error) {
    size_t left;
    unsigned char *at;
    if (ep == NULL || count > ep->borrowed)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "publish of %u slots, %u borrowed", count,
                         ep ? ep->borrowed : 0);
    ep->borrowed = 0;
    left = count * ep->borrowed_len;
    at = ep->pool + ep->spliced % ep->pool_size;
    while (left > 0) {
        struct iovec iov = {at, left};
        ssize_t n = vmsplice(ep->fd, &iov, 1, 0);
        if (n > 0) {
            at += n;
            left -= (size_t)n;
            ep->spliced += (uint64_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EPIPE) {
            return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reading side closed the pipe");
        } else {
            return ipcb_fail_errno(error, errno, "vmsplice into the pipe");
        }
    }
    return IPCB_OK;
}

int32_t pipe_vmsplice_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                           ipcb_error *error) {
    ipcb_msg slot = {NULL, 0};
    uint32_t got = 0;
    int32_t s = pipe_borrow(ep, len, 1, &slot, &got, timeout_ns, error);
    if (s != IPCB_OK) return s;
    if (got != 1 || slot.data == NULL)
        return ipcb_fail(error, IPCB_E_INTERNAL, 0, "pipe: borrow gave no slot");
    memcpy(slot.data, buf, len);
    return pipe_publish(ep, 1, error);
}

int32_t IPCB_CALL pipe_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                  uint32_t *sent, int64_t timeout_ns, ipcb_error *error) {
    int e;
    if (sent != NULL) *sent = 0;
    if (ep == NULL || msgs == NULL || sent == NULL || ep->direction != IPCB_DIR_SEND || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send_batch needs a connected sending end");
    if (ep->vmsplice) {
        for (; *sent < count; ++*sent) {
            int32_t s = pipe_vmsplice_send(ep, msgs[*sent].data, (size_t)msgs[*sent].len,
                                           timeout_ns, error);
            if (s != IPCB_OK) return s;
        }
        return IPCB_OK;
    }
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    e = batch_writev(ep->fd, msgs, count, sent);
    if (e == EPIPE)
        return ipcb_fail(error, IPCB_E_CLOSED, EPIPE, "the reading side closed the pipe");
    return e ? ipcb_fail_errno(error, e, "writev to pipe") : IPCB_OK;
}
