#define _GNU_SOURCE
#include "socket_readiness.h"

#include <errno.h>
#include <sys/socket.h>

void socket_event_source_of(int fd, ipcb_event_source *out) {
    out->kind = IPCB_HANDLE_FD;
    out->handle = fd;
    out->recv_events = IPCB_EVENT_READABLE;
    out->send_events = IPCB_EVENT_WRITABLE;
}

int socket_send_now(int fd, const void *buf, size_t len, int flags, size_t *n) {
    *n = 0;
    for (;;) {
        const ssize_t sent = send(fd, buf, len, flags | MSG_DONTWAIT);
        if (sent >= 0) {
            *n = (size_t)sent;
            return 0;
        }
        if (errno != EINTR) return errno;
    }
}
