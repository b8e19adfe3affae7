/* ABI 1.2 completion over an I/O completion port (win_iocp.h). */
#include "win_iocp.h"

#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "win_io.h"

struct ipcb_completion_queue {
    HANDLE port;
    uint32_t depth, outstanding;
    /* Completions of endpoints closed with transfers outstanding, for the next cq_wait. */
    ipcb_completion *held;
    uint32_t held_count, held_cap;
};

int32_t IPCB_CALL win_cq_open(uint32_t depth, const ipcb_host *host, ipcb_completion_queue **out,
                              ipcb_error *error) {
    ipcb_completion_queue *q;
    (void)host;
    if (out == NULL || depth == 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_open needs a depth of 1 or more");
    *out = NULL;
    q = (ipcb_completion_queue *)calloc(1, sizeof *q);
    if (q == NULL)
        return ipcb_fail(error, IPCB_E_NO_MEMORY, ERROR_NOT_ENOUGH_MEMORY, "out of memory");
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

int32_t win_iocp_submit(ipcb_completion_queue *q, win_iocp_binding *b, const char *id, int which,
                        void *buf, size_t len, uint64_t user_data, ipcb_error *error) {
    win_iocp_op *op;
    int e;
    if (q == NULL || b == NULL || buf == NULL || len == 0 || len > 0x7fffffffu)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "submit needs a queue, an endpoint and a buffer");
    op = &b->op[which];
    if (op->busy)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: a %s is already outstanding", id,
                         which ? "receive" : "send");
    if (b->port != NULL && b->port != q->port)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "%s: its handle belongs to another queue (Windows binds it for life)", id);
    if (q->outstanding >= q->depth)
        return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "%u submissions outstanding, the depth",
                         q->depth);
    if (b->port == NULL) {
        if (CreateIoCompletionPort(b->handle, q->port, (ULONG_PTR)b, 0) == NULL)
            return win_fail(error, GetLastError(), "%s: associating its handle with the port", id);
        b->port = q->port;
    }
    op->binding = b;
    op->which = which;
    op->base = (unsigned char *)buf;
    op->len = len;
    op->done = 0;
    op->user_data = user_data;
    if ((e = b->start(op)) != 0) {
        if (b->peer_gone(e)) return ipcb_fail(error, IPCB_E_CLOSED, e, "%s: the peer is gone", id);
        return win_fail(error, (DWORD)e, "%s: starting the %s", id, which ? "receive" : "send");
    }
    op->busy = 1;
    b->queue = q;
    ++q->outstanding;
    return IPCB_OK;
}

/* Turns one dequeued packet into a completion for the host (1), or into a resend of a partial
 * write or nothing (0): a packet whose OVERLAPPED is not one of the binding's is not ours. */
static int reap(ipcb_completion_queue *q, ULONG_PTR key, OVERLAPPED *ov, DWORD bytes,
                ipcb_completion *out) {
    win_iocp_binding *b = (win_iocp_binding *)key;
    win_iocp_op *op;
    int e;
    if (b == NULL || (ov != &b->op[0].ov && ov != &b->op[1].ov)) return 0;
    op = (win_iocp_op *)ov;
    if (!op->busy) return 0;
    e = b->finish(op);
    if (e == 0 && op->which == 0 && bytes > 0 && op->done + bytes < op->len) {
        op->done += bytes;
        if ((e = b->start(op)) == 0) return 0;
    }
    out->user_data = op->user_data;
    out->op = op->which == 0 ? IPCB_OP_SEND : IPCB_OP_RECV;
    out->len = 0;
    if (e != 0)
        out->status =
            b->peer_gone(e) || e == ERROR_OPERATION_ABORTED ? IPCB_E_CLOSED : IPCB_E_SYSTEM;
    else if (bytes == 0)
        out->status = IPCB_E_CLOSED; /* a receive of nothing: the peer shut down */
    else {
        out->status = IPCB_OK;
        out->len = op->which == 0 ? op->len : bytes;
    }
    op->busy = 0;
    --q->outstanding;
    if (!b->op[0].busy && !b->op[1].busy) b->queue = NULL;
    return 1;
}

int32_t IPCB_CALL win_cq_wait(ipcb_completion_queue *q, ipcb_completion *out, uint32_t max,
                              uint32_t *count, int64_t timeout_ns, ipcb_error *error) {
    const int64_t deadline = win_deadline(timeout_ns);
    uint32_t n = 0;
    if (count != NULL) *count = 0;
    if (q == NULL || out == NULL || max == 0 || count == NULL)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "cq_wait needs a queue and room for one");
    while (n < max && q->held_count > 0) out[n++] = q->held[--q->held_count];
    for (;;) {
        OVERLAPPED_ENTRY entries[64];
        ULONG got = 0, i;
        const DWORD ms = n > 0 || timeout_ns == 0 ? 0 : win_left_ms(deadline);
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
        if (timeout_ns == 0 || (deadline >= 0 && win_left_ms(deadline) == 0))
            return IPCB_E_TIMEOUT; /* nothing done: an idle loop's hot path, no message */
    }
    *count = n;
    return IPCB_OK;
}

void IPCB_CALL win_cq_close(ipcb_completion_queue *q) {
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

int win_iocp_cancel(win_iocp_binding *b) {
    ipcb_completion_queue *q = b->queue;
    const int64_t deadline = win_deadline(5000000000LL);
    if (q == NULL) return 1;
    if (b->op[0].busy) CancelIoEx(b->handle, &b->op[0].ov);
    if (b->op[1].busy) CancelIoEx(b->handle, &b->op[1].ov);
    while ((b->op[0].busy || b->op[1].busy) && win_left_ms(deadline) > 0) {
        DWORD bytes = 0;
        ULONG_PTR key = 0;
        OVERLAPPED *ov = NULL;
        ipcb_completion c;
        GetQueuedCompletionStatus(q->port, &bytes, &key, &ov, win_left_ms(deadline));
        if (ov != NULL && reap(q, key, ov, bytes, &c)) hold(q, &c);
    }
    return !b->op[0].busy && !b->op[1].busy;
}
