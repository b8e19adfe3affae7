/* ABI 1.2 readiness over a socket descriptor, shared by socket.* and udp.* (POSIX): the socket
 * is the handle, and a try_send is one send() with MSG_DONTWAIT, so the socket itself stays
 * blocking for the 1.0 calls. */
#ifndef IPCB_SOCKET_READINESS_H
#define IPCB_SOCKET_READINESS_H

#include <stddef.h>

#include "ipcbench/transport.h"

/* The event source of a connected socket: readable for receives, writable for sends. */
void socket_event_source_of(int fd, ipcb_event_source *out);

/* One send(fd, buf, len, flags | MSG_DONTWAIT), retried on EINTR: 0 with *n the bytes the
 * kernel took, or the errno (EAGAIN or EWOULDBLOCK: it would block; the caller says
 * IPCB_E_TIMEOUT, the hot path of an event loop). */
int socket_send_now(int fd, const void *buf, size_t len, int flags, size_t *n);

#endif
