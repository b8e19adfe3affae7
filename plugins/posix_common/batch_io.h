/* Batched socket I/O shared by the socket and udp plugins (ABI 1.1 send_batch/recv_batch):
 * sendmmsg/recvmmsg for message sockets, writev for streams. */
#ifndef IPCB_BATCH_IO_H
#define IPCB_BATCH_IO_H

#include <stddef.h>

#include "ipcbench/transport.h"

/* IPCB_OK when msgs[0..count) are all non-empty, else IPCB_E_INVALID naming the first empty one
 * (the send_batch contract: 1 <= len). */
int32_t batch_check_messages(const ipcb_msg *msgs, uint32_t count, ipcb_error *error);

/* The most messages one system call carries; larger batches take several calls. */
#define BATCH_IO_CHUNK 64u

/* Sends msgs[0..count) as whole datagrams/records with sendmmsg; *sent counts those that went.
 * Errors are returned as errno values (0 on success) for the caller to word. */
int batch_sendmmsg(int fd, const ipcb_msg *msgs, uint32_t count, uint32_t *sent);

/* Writes msgs[0..count) as one byte stream with writev, resuming after partial writes;
 * *sent counts the messages written whole. Returns 0 or an errno value. */
int batch_writev(int fd, const ipcb_msg *msgs, uint32_t count, uint32_t *sent);

/* Receives up to count (<= BATCH_IO_CHUNK) messages with one recvmmsg(MSG_WAITFORONE) into the
 * host buffers msgs[i].data of msgs[i].len bytes; on return msgs[i].len is each length and
 * truncated[i] says a message did not fit. Returns the count (0 = the peer closed, for
 * connection sockets) or -errno. */
int batch_recvmmsg(int fd, ipcb_msg *msgs, uint32_t count, int flags, unsigned char *truncated);

#endif
