/* The endpoint shared by socket.tcp, socket.unix and socket.seqpacket: one connected socket,
 * duplex, blocking I/O with optional ppoll() timeouts. */
#ifndef IPCB_SOCKET_ENDPOINT_H
#define IPCB_SOCKET_ENDPOINT_H

#include "ipcbench/transport.h"
#include "peer_binding.h"
#include "socket_compat.h"

#ifdef _WIN32
#define SOCKET_PATH_CAP 108 /* no Unix sockets on Windows: socket.tcp only */
#else
#include <sys/un.h>
#define SOCKET_PATH_CAP sizeof(((struct sockaddr_un *)0)->sun_path)
#endif

/* One outstanding io_uring submission of an endpoint (socket_uring.c): [0] send, [1] recv. */
struct socket_uring_op {
    struct ipcb_endpoint *ep;
    unsigned char *buf;
    size_t len, done;
    uint64_t user_data;
    int busy;
};

#ifdef _WIN32
#include "win_iocp.h"
#endif

struct ipcb_endpoint {
    const char *id;
    int family; /* AF_INET, AF_INET6, AF_UNIX */
    int type;   /* SOCK_STREAM, SOCK_SEQPACKET */
    uint32_t role;
    int listen_fd;
    int fd;
    struct sockaddr_storage address; /* creator: bound; connector: where to connect */
    socklen_t address_len;
    char path[SOCKET_PATH_CAP]; /* AF_UNIX creator's socket file */
    char owned_dir[256];        /* a directory this endpoint made (no runtime_dir given) */
    int nodelay;                /* -1: not TCP */
    uint64_t sndbuf, rcvbuf;    /* 0: kernel default */
    uint64_t max_message;
    const ipcb_host *host;
    /* zerocopy=1 (socket.tcp): MSG_ZEROCOPY sends issued, completed, and completed as copies. */
    int zerocopy;
    uint64_t zc_issued, zc_completed, zc_copied;
    /* ABI 1.2 completion: the queue this endpoint submitted to, and its submissions. */
    ipcb_completion_queue *queue;
    struct socket_uring_op uring_op[2];
    /* "ipcb.peer-binding/1" (socket_binding.c): socket.tcp's one peer and its key. */
    struct peer_binding binding;
    unsigned refusals; /* connections a bound creator refused: the first few are logged */
#ifdef _WIN32
    win_iocp_binding iocp; /* socket_iocp_windows.c */
#endif
};

int32_t socket_open(const ipcb_open_params *params, const char *id, int type, int is_tcp,
                    const ipcb_option_desc *options, uint32_t option_count, ipcb_endpoint **out,
                    ipcb_error *error);
int32_t IPCB_CALL socket_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                        ipcb_error *error);
int32_t IPCB_CALL socket_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL socket_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                              ipcb_error *error);
int32_t IPCB_CALL socket_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                              int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL socket_close(ipcb_endpoint *ep);
void IPCB_CALL socket_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context);
int32_t IPCB_CALL socket_remove_address(const char *address, ipcb_error *error);
/* socket_binding.c: "ipcb.peer-binding/1" for socket.tcp */
const void *IPCB_CALL socket_get_extension(const char *id);
/* A bound creator's connect: the first connection from the peer's host that presents the key. */
int32_t socket_accept_bound(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error);
/* A bound connector's connect, once connected: the key, before any data. */
int32_t socket_present_key(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error);
/* The connected socket's options (buffers, TCP_NODELAY, zerocopy), shared with connect. */
int32_t socket_tune_connected(ipcb_endpoint *ep, ipcb_error *error);
/* A failed socket call's errno as a status: IPCB_E_CLOSED for a gone peer, IPCB_E_TOO_BIG for
 * EMSGSIZE, IPCB_E_SYSTEM otherwise, with `what` in the message. */
int32_t socket_failed(ipcb_endpoint *ep, int e, const char *what, ipcb_error *error);
/* One recv() with `flags` into buf, retried on EINTR: IPCB_OK with *len, IPCB_E_TIMEOUT when
 * MSG_DONTWAIT found nothing, IPCB_E_TRUNCATED (MSG_TRUNC), IPCB_E_CLOSED, or the error. */
int32_t socket_recv_call(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len, int flags,
                         ipcb_error *error);
#ifndef _WIN32
/* socket_zerocopy.c */
int32_t socket_enable_zerocopy(ipcb_endpoint *ep, ipcb_error *error);
int32_t socket_zerocopy_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                             ipcb_error *error);
void socket_zerocopy_report(ipcb_endpoint *ep);
/* socket_events.c: ABI 1.2 readiness */
int32_t IPCB_CALL socket_event_source(ipcb_endpoint *ep, ipcb_event_source *out, ipcb_error *error);
int32_t IPCB_CALL socket_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                                  ipcb_error *error);
int32_t IPCB_CALL socket_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                  ipcb_error *error);
#endif
#if defined(IPCB_SOCKET_URING) || defined(_WIN32)
/* ABI 1.2 completion: socket_uring.c (io_uring) or socket_iocp_windows.c (an I/O completion port,
 * whose queue is plugins/windows_common/win_iocp.c's) */
#ifdef IPCB_SOCKET_URING
int32_t IPCB_CALL socket_cq_open(uint32_t depth, const ipcb_host *host, ipcb_completion_queue **out,
                                 ipcb_error *error);
#else
#define socket_cq_open win_cq_open
#define socket_cq_wait win_cq_wait
#define socket_cq_close win_cq_close
#endif
int32_t IPCB_CALL socket_submit_send(ipcb_completion_queue *q, ipcb_endpoint *ep, const void *buf,
                                     size_t len, uint64_t user_data, ipcb_error *error);
int32_t IPCB_CALL socket_submit_recv(ipcb_completion_queue *q, ipcb_endpoint *ep, void *buf,
                                     size_t cap, uint64_t user_data, ipcb_error *error);
#ifdef IPCB_SOCKET_URING
int32_t IPCB_CALL socket_cq_wait(ipcb_completion_queue *q, ipcb_completion *out, uint32_t max,
                                 uint32_t *count, int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL socket_cq_close(ipcb_completion_queue *q);
/* From close: cancels the endpoint's outstanding submissions and waits for the kernel. */
void socket_uring_cancel(ipcb_endpoint *ep);
#endif
#endif
/* socket_batch.c (POSIX: sendmmsg, recvmmsg) */
int32_t IPCB_CALL socket_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                    uint32_t *sent, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL socket_recv_batch(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t count,
                                    uint32_t *received, int64_t timeout_ns, ipcb_error *error);

#endif
