/* socket.*: batches (ABI 1.1). Streams write a batch with writev; seqpacket sends and receives
 * records with sendmmsg/recvmmsg. Used by ipchost --batch N. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "batch_io.h"
#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_endpoint.h"

int32_t IPCB_CALL socket_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                    uint32_t *sent, int64_t timeout_ns, ipcb_error *error) {
    int e;
    if (sent != NULL) *sent = 0;
    if (ep == NULL || msgs == NULL || sent == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send_batch needs a connected endpoint");
    if ((e = batch_check_messages(msgs, count, error)) != IPCB_OK) return e;
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLOUT, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    if (ep->zerocopy) { /* MSG_ZEROCOPY has no vector form with completions per message */
        for (; *sent < count; ++*sent) {
            int32_t st = socket_zerocopy_send(ep, msgs[*sent].data, (size_t)msgs[*sent].len,
                                              timeout_ns, error);
            if (st != IPCB_OK) return st;
        }
        return IPCB_OK;
    }
    e = ep->type == SOCK_SEQPACKET ? batch_sendmmsg(ep->fd, msgs, count, sent)
                                   : batch_writev(ep->fd, msgs, count, sent);
    return e ? socket_failed(ep, e, ep->type == SOCK_SEQPACKET ? "sendmmsg" : "writev", error)
             : IPCB_OK;
}

int32_t IPCB_CALL socket_recv_batch(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t count,
                                    uint32_t *received, int64_t timeout_ns, ipcb_error *error) {
    unsigned char truncated[BATCH_IO_CHUNK] = {0};
    uint32_t i;
    int n;
    if (received != NULL) *received = 0;
    if (ep == NULL || msgs == NULL || received == NULL || count == 0 || ep->fd < 0 ||
        ep->type != SOCK_SEQPACKET)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "recv_batch needs a connected seqpacket endpoint and buffers");
    if (timeout_ns >= 0) {
        int32_t status = posix_wait_fd(ep->fd, POLLIN, posix_deadline(timeout_ns), error);
        if (status != IPCB_OK) return status;
    }
    n = batch_recvmmsg(ep->fd, msgs, count, MSG_TRUNC, truncated);
    if (n < 0) return socket_failed(ep, -n, "recvmmsg", error);
    for (i = 0; i < (uint32_t)n; ++i) {
        if (msgs[i].len == 0) break; /* end of the connection after the messages before it */
        if (truncated[i]) {
            *received = i;
            return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                             "%s: message of %llu B does not fit its buffer", ep->id,
                             (unsigned long long)msgs[i].len);
        }
    }
    if (i == 0)
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "%s: the peer closed the connection", ep->id);
    *received = i;
    return IPCB_OK;
}
