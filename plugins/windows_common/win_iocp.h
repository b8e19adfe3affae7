/* ABI 1.2 completion over an I/O completion port, shared by the Windows plugins (socket.tcp,
 * pipe.named): a queue is one port; an endpoint embeds a win_iocp_binding with its two
 * transfers (send, receive) and says how one starts on its handle. The handle is associated
 * with the port at its first submission, for life, as Windows has it; the completion key is
 * the binding, so a packet that is not one of its two transfers (wine posts some of its own)
 * is dropped. A send the system took only in part is resubmitted for the rest here. */
#ifndef IPCB_WIN_IOCP_H
#define IPCB_WIN_IOCP_H

#include <windows.h>

#include "ipcbench/transport.h"

struct win_iocp_binding;

typedef struct win_iocp_op {
    OVERLAPPED ov; /* first: the port hands it back */
    struct win_iocp_binding *binding;
    unsigned char *base;
    size_t len, done;
    uint64_t user_data;
    int which; /* 0 send, 1 receive */
    int busy;
} win_iocp_op;

typedef struct win_iocp_binding {
    win_iocp_op op[2];
    HANDLE handle;                /* the plugin's socket or file, set before the first submit */
    HANDLE port;                  /* the port it is bound to; NULL before */
    ipcb_completion_queue *queue; /* while a transfer is outstanding */
    /* Starts (or continues) op's transfer of base+done..len: 0 when under way or done (the
     * port gets the packet either way), else the system's error code. */
    int (*start)(win_iocp_op *op);
    /* The error of op's finished transfer, 0 when it went. */
    int (*finish)(win_iocp_op *op);
    /* Whether a system error code means the peer is gone (IPCB_E_CLOSED). */
    int (*peer_gone)(int code);
} win_iocp_binding;

int32_t IPCB_CALL win_cq_open(uint32_t depth, const ipcb_host *host, ipcb_completion_queue **out,
                              ipcb_error *error);
int32_t IPCB_CALL win_cq_wait(ipcb_completion_queue *q, ipcb_completion *out, uint32_t max,
                              uint32_t *count, int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL win_cq_close(ipcb_completion_queue *q);

/* submit_send (which 0) and submit_recv (which 1) for the endpoint `id` owning b. */
int32_t win_iocp_submit(ipcb_completion_queue *q, win_iocp_binding *b, const char *id, int which,
                        void *buf, size_t len, uint64_t user_data, ipcb_error *error);

/* For close(): cancels b's outstanding transfers and waits (5 s at most) until the system is
 * done with the host's buffers; their completions, and any other that came meanwhile, wait for
 * the next cq_wait. 0 when one is still outstanding after that (wine may post a cancelled
 * transfer's packet only once the handle is closed): the endpoint must then stay allocated, as
 * the late packet points into it. */
int win_iocp_cancel(win_iocp_binding *b);

#endif
