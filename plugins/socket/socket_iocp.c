/* ABI 1.2 completion for socket.tcp on Windows through an I/O completion port: a queue is one
 * port; a submission is one overlapped WSASend or WSARecv on the endpoint's socket, which is
 * associated with the port at its first submission (for life, as Windows has it); cq_wait is
 * GetQueuedCompletionStatusEx. A send the stack took only in part is resubmitted for the rest
 * here, so the host sees one completion per message. */
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_endpoint.h"
#include "win_io.h"

struct ipcb_completion_queue {
    HANDLE port;
    uint32_t depth, outstanding;
    /* Completions of endpoints closed with submissions outstanding, for the next cq_wait. */
    ipcb_completion *held;
    uint32_t held_count, held_cap;
};

int32_t IPCB_CALL socket_cq_open(uint32_t depth, const ipcb_host *host, ipcb_completion_queue **out,
                                 ipcb_error *error) {
    ipcb_completion_queue *q;
    (void)host;
    if (out == NULL || depth == 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_open needs a depth of 1 or more");
    *out = NULL;
    q = (ipcb_completion_queue *)calloc(1, sizeof *q);
    if (q == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    q->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
    if (q->port == NULL) {
        const DWORD e = GetLastError();
        free(q);
        return win_fail(error, e, "CreateIoCompletionPort");
    }
    q->depth = depth;
    *out = q;
    return IPCB_OK;
}

/* Starts (or continues) op's transfer; 0 when under way, else the Winsock error. */
static int start(struct socket_iocp_op *op) {
    DWORD flags = 0;
    int r;
    memset(&op->ov, 0, sizeof op->ov);
    op->wsabuf.buf = (char *)op->base + op->done;
    op->wsabuf.len = (ULONG)(op->len - op->done);
    r = op->which == 0 ? WSASend((SOCKET)op->ep->fd, &op->wsabuf, 1, NULL, 0, &op->ov, NULL)
                       : WSARecv((SOCKET)op->ep->fd, &op->wsabuf, 1, NULL, &flags, &op->ov, NULL);
    if (r == 0) return 0; /* done at once: the port still gets the completion */
    r = WSAGetLastError();
    return r == WSA_IO_PENDING ? 0 : r;
}

static int32_t submit(ipcb_completion_queue *q, ipcb_endpoint *ep, int which, void *buf, size_t len,
                      uint64_t user_data, ipcb_error *error) {
    struct socket_iocp_op *op;
    int e;
    if (q == NULL || ep == NULL || buf == NULL || len == 0 || ep->fd < 0 || len > 0x7fffffffu)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "submit needs a queue, a connected endpoint and a buffer");
    op = &ep->iocp_op[which];
    if (op->busy)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: a %s is already outstanding", ep->id,
                         which ? "recv" : "send");
    if (ep->iocp_port != NULL && ep->iocp_port != q->port)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "%s: its socket belongs to another queue (Windows binds it for life)",
                         ep->id);
    if (q->outstanding >= q->depth)
        return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "%u submissions outstanding, the depth",
                         q->depth);
    if (ep->iocp_port == NULL) {
        if (CreateIoCompletionPort((HANDLE)(SOCKET)ep->fd, q->port, (ULONG_PTR)ep, 0) == NULL)
            return win_fail(error, GetLastError(), "%s: associating the socket with the port",
                            ep->id);
        ep->iocp_port = q->port;
    }
    op->ep = ep;
    op->which = which;
    op->base = (unsigned char *)buf;
    op->len = len;
    op->done = 0;
    op->user_data = user_data;
    if ((e = start(op)) != 0) return socket_failed(ep, e, which ? "WSARecv" : "WSASend", error);
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

static int32_t status_of(int e) {
    if (SOCK_PEER_GONE(e) || e == WSA_OPERATION_ABORTED || e == ERROR_OPERATION_ABORTED ||
        e == ERROR_NETNAME_DELETED)
        return IPCB_E_CLOSED;
    return IPCB_E_SYSTEM;
}

/* Turns one dequeued packet into a completion for the host (1), or into a resend of a partial
 * write or nothing (0). The key is the endpoint the socket was bound with: a packet whose
 * OVERLAPPED is not one of its two is not ours (wine posts some of its own) and is dropped,
 * without touching the endpoint. */
static int reap(ipcb_completion_queue *q, ULONG_PTR key, OVERLAPPED *ov, DWORD bytes,
                ipcb_completion *out) {
    ipcb_endpoint *ep = (ipcb_endpoint *)key;
    struct socket_iocp_op *op;
    DWORD got = 0, flags = 0;
    int e = 0;
    if (ep == NULL || (ov != &ep->iocp_op[0].ov && ov != &ep->iocp_op[1].ov)) return 0;
    op = CONTAINING_RECORD(ov, struct socket_iocp_op, ov);
    if (!op->busy) return 0;
    if (!WSAGetOverlappedResult((SOCKET)op->ep->fd, &op->ov, &got, FALSE, &flags))
        e = WSAGetLastError();
    if (e == 0 && op->which == 0 && bytes > 0 && op->done + bytes < op->len) {
        op->done += bytes;
        if ((e = start(op)) == 0) return 0;
    }
    out->user_data = op->user_data;
    out->op = op->which == 0 ? IPCB_OP_SEND : IPCB_OP_RECV;
    out->len = 0;
    if (e != 0) {
        out->status = status_of(e);
    } else if (bytes == 0) {
        out->status = IPCB_E_CLOSED; /* a receive of 0 bytes: the peer shut down */
    } else {
        out->status = IPCB_OK;
        out->len = op->which == 0 ? op->len : bytes;
    }
    op->busy = 0;
    --q->outstanding;
    if (!op->ep->iocp_op[0].busy && !op->ep->iocp_op[1].busy) op->ep->queue = NULL;
    return 1;
}

int32_t IPCB_CALL socket_cq_wait(ipcb_completion_queue *q, ipcb_completion *out, uint32_t max,
                                 uint32_t *count, int64_t timeout_ns, ipcb_error *error) {
    const int64_t deadline = posix_deadline(timeout_ns);
    uint32_t n = 0;
    if (count != NULL) *count = 0;
    if (q == NULL || out == NULL || max == 0 || count == NULL)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_wait needs a queue and room for one");
    while (n < max && q->held_count > 0) out[n++] = q->held[--q->held_count];
    for (;;) {
        OVERLAPPED_ENTRY entries[64];
        ULONG got = 0, i;
        const int64_t left = n > 0 ? 0 : posix_left(deadline);
        const DWORD ms = left < 0 ? INFINITE : (DWORD)((left + 999999) / 1000000);
        const ULONG room = max - n < 64 ? (ULONG)(max - n) : 64;
        if (!GetQueuedCompletionStatusEx(q->port, entries, room, &got, ms, FALSE)) {
            const DWORD e = GetLastError();
            if (e != WAIT_TIMEOUT) return win_fail(error, e, "GetQueuedCompletionStatusEx");
            got = 0;
        }
        for (i = 0; i < got; ++i)
            if (entries[i].lpOverlapped != NULL)
                n += (uint32_t)reap(q, entries[i].lpCompletionKey, entries[i].lpOverlapped,
                                    entries[i].dwNumberOfBytesTransferred, &out[n]);
        if (n > 0) break;
        if (timeout_ns == 0 || (deadline >= 0 && posix_left(deadline) <= 0))
            return IPCB_E_TIMEOUT; /* nothing done: an idle loop's hot path, no message */
    }
    *count = n;
    return IPCB_OK;
}

void IPCB_CALL socket_cq_close(ipcb_completion_queue *q) {
    if (q == NULL) return;
    CloseHandle(q->port);
    free(q->held);
    free(q);
}

static void hold(ipcb_completion_queue *q, const ipcb_completion *c) {
    if (q->held_count == q->held_cap) {
        const uint32_t cap = q->held_cap ? q->held_cap * 2 : 16;
        ipcb_completion *grown = (ipcb_completion *)realloc(q->held, cap * sizeof *grown);
        if (grown == NULL) return;
        q->held = grown;
        q->held_cap = cap;
    }
    q->held[q->held_count++] = *c;
}

/* close() with submissions outstanding: cancel them and wait (5 s at most) until Windows is
 * done with the host's buffers; their completions and any other that came meanwhile wait for
 * the next cq_wait. Returns 0 when one is still outstanding after that (wine may post a
 * cancelled receive's packet only once the socket is closed): the endpoint must then outlive
 * close, as the packet still points into it. */
int socket_iocp_cancel(ipcb_endpoint *ep) {
    ipcb_completion_queue *q = ep->queue;
    const int64_t deadline = posix_deadline(5000000000LL);
    if (q == NULL) return 1;
    if (ep->iocp_op[0].busy) CancelIoEx((HANDLE)(SOCKET)ep->fd, &ep->iocp_op[0].ov);
    if (ep->iocp_op[1].busy) CancelIoEx((HANDLE)(SOCKET)ep->fd, &ep->iocp_op[1].ov);
    while ((ep->iocp_op[0].busy || ep->iocp_op[1].busy) && posix_left(deadline) > 0) {
        DWORD bytes = 0;
        ULONG_PTR key = 0;
        OVERLAPPED *ov = NULL;
        ipcb_completion c;
        const int64_t left = posix_left(deadline);
        GetQueuedCompletionStatus(q->port, &bytes, &key, &ov, (DWORD)(left / 1000000 + 1));
        if (ov != NULL && reap(q, key, ov, bytes, &c)) hold(q, &c);
    }
    return !ep->iocp_op[0].busy && !ep->iocp_op[1].busy;
}
