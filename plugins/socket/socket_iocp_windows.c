/* ABI 1.2 completion for socket.tcp on Windows: overlapped WSASend and WSARecv on the socket,
 * through the shared I/O completion port code (plugins/windows_common/win_iocp.c). */
#include <string.h>

#include "ipcbench/error_format.h"
#include "socket_endpoint.h"
#include "win_iocp.h"

static int socket_start(win_iocp_op *op) {
    SOCKET s = (SOCKET)op->binding->handle;
    WSABUF b;
    DWORD flags = 0;
    int r;
    memset(&op->ov, 0, sizeof op->ov);
    b.buf = (char *)op->base + op->done;
    b.len = (ULONG)(op->len - op->done);
    r = op->which == 0 ? WSASend(s, &b, 1, NULL, 0, &op->ov, NULL)
                       : WSARecv(s, &b, 1, NULL, &flags, &op->ov, NULL);
    if (r == 0) return 0; /* done at once: the port still gets the packet */
    r = WSAGetLastError();
    return r == WSA_IO_PENDING ? 0 : r;
}

static int socket_finish(win_iocp_op *op) {
    DWORD got = 0, flags = 0;
    if (WSAGetOverlappedResult((SOCKET)op->binding->handle, &op->ov, &got, FALSE, &flags)) return 0;
    return WSAGetLastError();
}

static int socket_peer_gone(int code) {
    return SOCK_PEER_GONE(code) || code == ERROR_NETNAME_DELETED;
}

static win_iocp_binding *binding_of(ipcb_endpoint *ep) {
    ep->iocp.handle = (HANDLE)(SOCKET)ep->fd;
    ep->iocp.start = socket_start;
    ep->iocp.finish = socket_finish;
    ep->iocp.peer_gone = socket_peer_gone;
    return &ep->iocp;
}

int32_t IPCB_CALL socket_submit_send(ipcb_completion_queue *q, ipcb_endpoint *ep, const void *buf,
                                     size_t len, uint64_t user_data, ipcb_error *error) {
    if (ep == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "submit_send needs a connected endpoint");
    return win_iocp_submit(q, binding_of(ep), ep->id, 0, (void *)buf, len, user_data, error);
}

int32_t IPCB_CALL socket_submit_recv(ipcb_completion_queue *q, ipcb_endpoint *ep, void *buf,
                                     size_t cap, uint64_t user_data, ipcb_error *error) {
    if (ep == NULL || ep->fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "submit_recv needs a connected endpoint");
    return win_iocp_submit(q, binding_of(ep), ep->id, 1, buf, cap, user_data, error);
}
