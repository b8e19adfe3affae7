/* ABI 1.2 completion for socket.tcp and socket.unix through io_uring (Debian's liburing): a
 * queue is one ring; a submission is one IORING_OP_SEND or IORING_OP_RECV on the endpoint's
 * socket, queued in the ring and passed to the kernel with the next cq_wait (many in one
 * io_uring_submit_and_wait). A send the kernel took only in part is resubmitted for the rest
 * here, so the host sees one completion per message. Built only where liburing is
 * (IPCB_SOCKET_URING). */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_endpoint.h"

struct ipcb_completion_queue {
    struct io_uring ring;
    uint32_t depth;       /* the most submissions the host may have outstanding */
    uint32_t outstanding; /* submitted and not yet reaped (partial resends included once) */
    /* Completions of endpoints closed with submissions outstanding, for the next cq_wait. */
    ipcb_completion *held;
    uint32_t held_count, held_cap;
};

#define CANCEL_TAG 0 /* user_data of the cancel requests close submits */

int32_t IPCB_CALL socket_cq_open(uint32_t depth, const ipcb_host *host, ipcb_completion_queue **out,
                                 ipcb_error *error) {
    ipcb_completion_queue *q;
    unsigned entries = 64;
    int r;
    (void)host;
    if (out == NULL || depth == 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_open needs a depth of 1 or more");
    *out = NULL;
    while (entries < depth && entries < 32768) entries *= 2;
    q = (ipcb_completion_queue *)calloc(1, sizeof *q);
    if (q == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    /* The completion ring holds twice the submissions: every outstanding one completes. */
    r = io_uring_queue_init(entries, &q->ring, 0);
    if (r < 0) {
        free(q);
        const int off = r == -EPERM || r == -ENOSYS || r == -EACCES;
        return ipcb_fail(error,
                         off            ? IPCB_E_UNSUPPORTED
                         : r == -ENOMEM ? IPCB_E_NO_MEMORY
                                        : IPCB_E_SYSTEM,
                         -r, "io_uring_queue_init(%u): %s%s", entries, strerror(-r),
                         off ? " (io_uring is off here: kernel.io_uring_disabled, a seccomp "
                               "filter or an old kernel; use --io epoll)"
                             : "");
    }
    q->depth = depth;
    *out = q;
    return IPCB_OK;
}

/* An SQE, flushing the queued ones to the kernel when the ring is full. */
static struct io_uring_sqe *next_sqe(ipcb_completion_queue *q) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
    if (sqe == NULL && io_uring_submit(&q->ring) >= 0) sqe = io_uring_get_sqe(&q->ring);
    return sqe;
}

static int32_t submit(ipcb_completion_queue *q, ipcb_endpoint *ep, int which, void *buf, size_t len,
                      uint64_t user_data, ipcb_error *error) {
    struct socket_uring_op *op;
    struct io_uring_sqe *sqe;
    if (q == NULL || ep == NULL || buf == NULL || len == 0 || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "submit needs a queue, a connected endpoint and a buffer");
    op = &ep->uring_op[which];
    if (op->busy)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: a %s is already outstanding", ep->id,
                         which ? "recv" : "send");
    if (ep->queue != NULL && ep->queue != q)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: submitted to another queue before", ep->id);
    if (q->outstanding >= q->depth)
        return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "%u submissions outstanding, the depth",
                         q->depth);
    sqe = next_sqe(q);
    if (sqe == NULL) return ipcb_fail(error, IPCB_E_SYSTEM, EBUSY, "io_uring: no free entry");
    if (which == 0)
        io_uring_prep_send(sqe, ep->fd, buf, len, MSG_NOSIGNAL);
    else
        io_uring_prep_recv(sqe, ep->fd, buf, len, 0);
    io_uring_sqe_set_data(sqe, op);
    op->ep = ep;
    op->buf = (unsigned char *)buf;
    op->len = len;
    op->done = 0;
    op->user_data = user_data;
    op->busy = 1;
    ep->queue = q;
    ++q->outstanding;
    return IPCB_OK;
}

int32_t IPCB_CALL socket_submit_send(ipcb_completion_queue *q, ipcb_endpoint *ep, const void *buf,
                                     size_t len, uint64_t user_data, ipcb_error *error) {
    return submit(q, ep, 0, (void *)buf, len, user_data, error);
}

int32_t IPCB_CALL socket_submit_recv(ipcb_completion_queue *q, ipcb_endpoint *ep, void *buf,
                                     size_t cap, uint64_t user_data, ipcb_error *error) {
    return submit(q, ep, 1, buf, cap, user_data, error);
}

static int32_t status_of(int res) {
    if (res == -EPIPE || res == -ECONNRESET || res == -ENOTCONN || res == -ECANCELED)
        return IPCB_E_CLOSED;
    if (res == -ENOMEM || res == -ENOBUFS) return IPCB_E_NO_MEMORY;
    return IPCB_E_SYSTEM;
}

/* Turns one CQE into a completion for the host (1), or into a resend of a partial write or
 * nothing (0). */
static int reap(ipcb_completion_queue *q, struct io_uring_cqe *cqe, ipcb_completion *out) {
    struct socket_uring_op *op = (struct socket_uring_op *)io_uring_cqe_get_data(cqe);
    const int is_send = op != NULL && op == &op->ep->uring_op[0];
    if (op == NULL || !op->busy) return 0; /* a cancel request's own completion */
    if (is_send && cqe->res > 0 && op->done + (size_t)cqe->res < op->len) {
        struct io_uring_sqe *sqe = next_sqe(q);
        op->done += (size_t)cqe->res;
        if (sqe != NULL) {
            io_uring_prep_send(sqe, op->ep->fd, op->buf + op->done, op->len - op->done,
                               MSG_NOSIGNAL);
            io_uring_sqe_set_data(sqe, op);
            return 0;
        }
        cqe->res = -EBUSY;
    }
    out->user_data = op->user_data;
    out->op = is_send ? IPCB_OP_SEND : IPCB_OP_RECV;
    out->len = 0;
    if (cqe->res > 0) {
        out->status = IPCB_OK;
        out->len = is_send ? op->len : (uint64_t)cqe->res;
    } else {
        out->status = cqe->res == 0 ? IPCB_E_CLOSED : status_of(cqe->res);
    }
    op->busy = 0;
    --q->outstanding;
    if (!op->ep->uring_op[0].busy && !op->ep->uring_op[1].busy) op->ep->queue = NULL;
    return 1;
}

int32_t IPCB_CALL socket_cq_wait(ipcb_completion_queue *q, ipcb_completion *out, uint32_t max,
                                 uint32_t *count, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    uint32_t n = 0;
    if (count != NULL) *count = 0;
    if (q == NULL || out == NULL || max == 0 || count == NULL)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_wait needs a queue and room for one");
    while (n < max && q->held_count > 0) out[n++] = q->held[--q->held_count];
    for (;;) {
        struct io_uring_cqe *cqe = NULL;
        unsigned head, seen = 0;
        int r;
        if (n > 0 || timeout_ns == 0) {
            r = io_uring_submit(&q->ring);
        } else {
            int64_t left = posix_left(deadline);
            struct __kernel_timespec ts = {left / 1000000000, left % 1000000000};
            r = io_uring_submit_and_wait_timeout(&q->ring, &cqe, 1, left < 0 ? NULL : &ts, NULL);
            if (r == -ETIME) r = 0;
        }
        if (r < 0 && r != -EINTR && r != -EBUSY)
            return ipcb_fail(error, IPCB_E_SYSTEM, -r, "io_uring_submit_and_wait: %s",
                             strerror(-r));
        io_uring_for_each_cqe(&q->ring, head, cqe) {
            if (n >= max) break;
            ++seen;
            n += (uint32_t)reap(q, cqe, &out[n]);
        }
        io_uring_cq_advance(&q->ring, seen);
        if (n > 0) break;
        if (timeout_ns == 0 || (deadline >= 0 && posix_left(deadline) <= 0)) {
            *count = 0;
            return IPCB_E_TIMEOUT; /* nothing done: the hot path of an idle loop, no message */
        }
    }
    *count = n;
    return IPCB_OK;
}

void IPCB_CALL socket_cq_close(ipcb_completion_queue *q) {
    if (q == NULL) return;
    io_uring_queue_exit(&q->ring);
    free(q->held);
    free(q);
}

/* close() with submissions outstanding: cancel them and wait until the kernel is done with the
 * host's buffers; their completions (IPCB_E_CLOSED) wait for the next cq_wait, and any other
 * endpoint's that came meanwhile too. */
void socket_uring_cancel(ipcb_endpoint *ep) {
    ipcb_completion_queue *q = ep->queue;
    int which;
    if (q == NULL || (!ep->uring_op[0].busy && !ep->uring_op[1].busy)) return;
    for (which = 0; which < 2; ++which) {
        struct io_uring_sqe *sqe;
        if (!ep->uring_op[which].busy || (sqe = next_sqe(q)) == NULL) continue;
        io_uring_prep_cancel(sqe, &ep->uring_op[which], 0);
        io_uring_sqe_set_data64(sqe, CANCEL_TAG);
    }
    while (ep->uring_op[0].busy || ep->uring_op[1].busy) {
        struct io_uring_cqe *cqe = NULL;
        ipcb_completion done;
        if (io_uring_submit_and_wait(&q->ring, 1) < 0 || io_uring_peek_cqe(&q->ring, &cqe) != 0)
            break;
        if (reap(q, cqe, &done)) {
            if (q->held_count == q->held_cap) {
                uint32_t cap = q->held_cap ? q->held_cap * 2 : 16;
                ipcb_completion *grown = (ipcb_completion *)realloc(q->held, cap * sizeof *grown);
                if (grown == NULL) {
                    io_uring_cqe_seen(&q->ring, cqe);
                    continue;
                }
                q->held = grown;
                q->held_cap = cap;
            }
            q->held[q->held_count++] = done;
        }
        io_uring_cqe_seen(&q->ring, cqe);
    }
}
