/* ABI 1.2 readiness for the socket transports (POSIX): the connected socket is the handle, and
 * try_send/try_recv are one send()/recv() with MSG_DONTWAIT, so the socket itself stays blocking
 * for the 1.0 calls. */
#include <poll.h>

#include "ipcbench/error_format.h"
#include "socket_endpoint.h"
#include "socket_readiness.h"

int32_t IPCB_CALL socket_event_source(ipcb_endpoint *ep, ipcb_event_source *out,
                                      ipcb_error *error) {
    if (ep == NULL || out == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "event_source needs a connected endpoint");
    if (ep->zerocopy)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "%s: zerocopy=1 waits for MSG_ZEROCOPY completions inside send; "
                         "drop the option to drive this socket from an event loop",
                         ep->id);
    socket_event_source_of(ep->fd, out);
    return IPCB_OK;
}

int32_t IPCB_CALL socket_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                                  ipcb_error *error) {
    if (sent != NULL) *sent = 0;
    if (ep == NULL || buf == NULL || len == 0 || sent == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "try_send needs a connected endpoint and data");
    const int e =
        socket_send_now(ep->fd, buf, len > 0x40000000u ? 0x40000000u : len, MSG_NOSIGNAL, sent);
    if (e == 0 && *sent > 0) return IPCB_OK;
    if (e == EAGAIN || e == EWOULDBLOCK)
        return IPCB_E_TIMEOUT; /* would block: the hot path of an event loop, no message */
    return socket_failed(ep, e ? e : EPIPE, "send", error);
}

int32_t IPCB_CALL socket_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                  ipcb_error *error) {
    int flags = MSG_DONTWAIT;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "try_recv needs a connected endpoint and buffer");
    if (ep->type == SOCK_SEQPACKET) flags |= MSG_TRUNC; /* returns the real length */
    return socket_recv_call(ep, buf, cap, len, flags, error);
}
