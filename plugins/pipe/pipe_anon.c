/* pipe.anon: an anonymous pipe (pipe2) made by the creator. The connector, another process,
 * reaches the same pipe object through /proc/<creator-pid>/fd/<n>: on Linux opening that path
 * opens the pipe itself, so no descriptor has to be passed. It needs the right to read the
 * creator's /proc entry (same user and ptrace-read access, or root). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "pipe_endpoint.h"
#include "posix_io.h"

static int32_t IPCB_CALL anon_open(const ipcb_open_params *params, ipcb_endpoint **out,
                                   ipcb_error *error) {
    ipcb_endpoint *ep = NULL;
    int32_t status;
    if (params == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    status = pipe_endpoint_alloc(params, PIPE_KIND_ANON, &ep, error);
    if (status != IPCB_OK) return status;

    if (ep->role == IPCB_ROLE_CREATOR) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) {
            int e = errno;
            pipe_close(ep);
            return ipcb_fail_errno(error, e, "pipe2");
        }
        ep->fd = ep->direction == IPCB_DIR_SEND ? fds[1] : fds[0];
        ep->spare_fd = ep->direction == IPCB_DIR_SEND ? fds[0] : fds[1];
        if ((status = pipe_apply_size(ep, ep->fd, error)) != IPCB_OK) {
            pipe_close(ep);
            return status;
        }
        snprintf(ep->path, sizeof ep->path, "/proc/%ld/fd/%d", (long)getpid(), ep->spare_fd);
    } else {
        struct stat st;
        long pid = 0;
        int fd = -1;
        char tail = 0;
        const char *address = params->address;
        if (address == NULL || sscanf(address, "/proc/%ld/fd/%d%c", &pid, &fd, &tail) != 2 ||
            pid <= 0 || fd < 0) {
            pipe_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "pipe.anon address '%s' is not of the form /proc/<pid>/fd/<n>",
                             address ? address : "(null)");
        }
        if (stat(address, &st) != 0 || !S_ISFIFO(st.st_mode)) {
            int e = errno;
            pipe_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, e,
                             "pipe.anon address '%s' does not name a pipe of a live process%s",
                             address,
                             e == EACCES ? " (no ptrace-read access to it: run both sides as "
                                           "the same user, or as root)"
                                         : "");
        }
        snprintf(ep->path, sizeof ep->path, "%s", address);
    }
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL anon_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                             ipcb_error *error) {
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR || ep->spare_fd < 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "export_address needs a creator endpoint before connect");
    if (strlen(ep->path) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer of %zu bytes is too small", cap);
    strcpy(buf, ep->path);
    return IPCB_OK;
}

/* The creator holds both ends until the connector has its own: then it drops the spare one so
 * that end-of-file and EPIPE work as with any pipe. A sending creator knows the reader is there
 * once the reader has consumed the hello byte. */
static int32_t creator_connect(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    int32_t status;
    if (ep->direction == IPCB_DIR_RECV) {
        status = pipe_recv_hello(ep->fd, deadline, error);
    } else {
        status = pipe_send_hello(ep->fd, error);
        while (status == IPCB_OK) {
            int queued = 0;
            if (ioctl(ep->fd, FIONREAD, &queued) != 0) {
                status = ipcb_fail_errno(error, errno, "ioctl(FIONREAD) on pipe");
                break;
            }
            if (queued == 0) break;
            if (deadline >= 0 && posix_now_ns() > deadline) {
                status = ipcb_fail(error, IPCB_E_TIMEOUT, 0,
                                   "timed out waiting for the reader to attach to the pipe");
                break;
            }
            posix_pause_us(100);
        }
    }
    if (status == IPCB_OK) {
        close(ep->spare_fd);
        ep->spare_fd = -1;
    }
    return status;
}

static int32_t IPCB_CALL anon_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    int fd;
    if (ep == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL endpoint");
    if (ep->role == IPCB_ROLE_CREATOR) {
        if (ep->spare_fd < 0)
            return ipcb_fail(error, IPCB_E_INVALID, 0, "endpoint is already connected");
        return creator_connect(ep, deadline, error);
    }
    if (ep->fd >= 0) return ipcb_fail(error, IPCB_E_INVALID, 0, "endpoint is already connected");
    fd = open(ep->path, (ep->direction == IPCB_DIR_RECV ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return ipcb_fail(error, IPCB_E_CLOSED, ENOENT,
                             "the creator of %s is gone before the connection", ep->path);
        return ipcb_fail_errno(error, errno, "open %s", ep->path);
    }
    ep->fd = fd;
    ep->effective_pipe_size = fcntl(fd, F_GETPIPE_SZ);
    if (ep->direction == IPCB_DIR_RECV) return pipe_recv_hello(fd, deadline, error);
    return pipe_send_hello(fd, error);
}

const ipcb_transport pipe_anon_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = PIPE_OPTION_COUNT,
    .id = "pipe.anon",
    .description = "anonymous pipe (pipe2), reached by the peer through /proc/<pid>/fd",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = pipe_options,
    .open = anon_open,
    .export_address = anon_export_address,
    .connect = anon_connect,
    .send = pipe_send,
    .recv = pipe_recv,
    .close = pipe_close,
    .query_settings = pipe_query_settings,
    .remove_address = NULL,
    .get_extension = NULL,
    .borrow = pipe_borrow,
    .publish = pipe_publish,
    .send_batch = pipe_send_batch,
    .event_source = pipe_event_source,
    .try_send = pipe_try_send,
    .try_recv = pipe_try_recv,
};
