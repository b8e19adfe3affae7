/* Socket buffer sizes for the socket and udp plugins. */
#ifndef IPCB_SOCKET_BUFFERS_H
#define IPCB_SOCKET_BUFFERS_H

#include <stdint.h>

#include "ipcbench/transport.h"

/* Applies SO_SNDBUF / SO_RCVBUF (0 = keep the kernel's), with the FORCE variants when allowed. */
int32_t socket_set_buffers(int fd, uint64_t sndbuf, uint64_t rcvbuf, ipcb_error *error);

/* A Unix datagram or seqpacket message must fit the sender's buffer (sk_sndbuf - 32 bytes on
 * Linux): raises SO_SNDBUF for `message` bytes unless the user chose it (`user_sndbuf`), or fails
 * with IPCB_E_TOO_BIG naming net.core.wmem_max and how to raise it. */
int32_t socket_fit_message(int fd, const char *transport_id, uint64_t message, int user_sndbuf,
                           ipcb_error *error);

#endif
