/* The endpoint shared by pipe.fifo and pipe.anon: one pipe, one direction, blocking I/O with
 * optional ppoll() timeouts, and a one-byte hello so each side knows the other is attached. */
#ifndef IPCB_PIPE_ENDPOINT_H
#define IPCB_PIPE_ENDPOINT_H

#include <limits.h>

#include "ipcbench/transport.h"

#define PIPE_KIND_FIFO 1
#define PIPE_KIND_ANON 2

struct ipcb_endpoint {
    int kind;
    uint32_t role;
    uint32_t direction;
    int fd;                   /* the data end, valid after connect (anon creator: after open) */
    int spare_fd;             /* anon creator: the other end, closed once the peer is attached */
    long requested_pipe_size; /* 0 = kernel default */
    int effective_pipe_size;
    char path[PATH_MAX];      /* fifo: its path; anon connector: /proc/<pid>/fd/<n> */
    char owned_dir[PATH_MAX]; /* a directory this endpoint made itself and removes on close */
    uint64_t max_message;
    /* splice=vmsplice (pipe_vmsplice.c): the sender's pool, mapped twice back to back so a
     * message never wraps, and how far it was handed to the pipe. */
    int vmsplice;
    int pool_fd;
    size_t pool_size;
    unsigned char *pool;
    uint64_t spliced;  /* bytes handed to the pipe so far */
    uint32_t borrowed; /* slots out, of borrowed_len bytes each */
    size_t borrowed_len;
};

/* Parses the options both transports share into ep. */
int32_t pipe_parse_options(const ipcb_open_params *params, ipcb_endpoint *ep, ipcb_error *error);

/* Allocates a zeroed endpoint with fds set to -1. */
int32_t pipe_endpoint_alloc(const ipcb_open_params *params, int kind, ipcb_endpoint **out,
                            ipcb_error *error);

/* Applies requested_pipe_size with F_SETPIPE_SZ and reads back the effective size. */
int32_t pipe_apply_size(ipcb_endpoint *ep, int fd, ipcb_error *error);

/* The writer sends one hello byte; the reader waits for it. */
int32_t pipe_send_hello(int fd, ipcb_error *error);
int32_t pipe_recv_hello(int fd, int64_t deadline_ns, ipcb_error *error);

/* Clears O_NONBLOCK on fd. */
int32_t pipe_set_blocking(int fd, ipcb_error *error);

int32_t IPCB_CALL pipe_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                            ipcb_error *error);
int32_t IPCB_CALL pipe_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                            int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL pipe_close(ipcb_endpoint *ep);
int32_t IPCB_CALL pipe_event_source(ipcb_endpoint *ep, ipcb_event_source *out, ipcb_error *error);
int32_t IPCB_CALL pipe_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                                ipcb_error *error);
int32_t IPCB_CALL pipe_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                ipcb_error *error);
void IPCB_CALL pipe_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context);

/* pipe_vmsplice.c: borrow/publish (ABI 1.1) and send with splice=vmsplice. borrow says
 * IPCB_E_UNSUPPORTED without that option, so the host copies with write. */
int32_t IPCB_CALL pipe_borrow(ipcb_endpoint *ep, size_t len, uint32_t max_count, ipcb_msg *slots,
                              uint32_t *count, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL pipe_publish(ipcb_endpoint *ep, uint32_t count, ipcb_error *error);
int32_t pipe_vmsplice_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                           ipcb_error *error);
void pipe_vmsplice_free(ipcb_endpoint *ep);
/* writev of a batch (ABI 1.1 send_batch). */
int32_t IPCB_CALL pipe_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                  uint32_t *sent, int64_t timeout_ns, ipcb_error *error);

#define PIPE_OPTION_COUNT 2u
extern const ipcb_option_desc pipe_options[PIPE_OPTION_COUNT];

#endif
