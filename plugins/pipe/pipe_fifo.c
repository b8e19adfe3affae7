/* pipe.fifo: a named pipe (mkfifo, 0600) in the host's private run directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "pipe_endpoint.h"
#include "posix_io.h"
#include "private_path.h"

static unsigned fifo_counter;

static int32_t IPCB_CALL fifo_open(const ipcb_open_params *params, ipcb_endpoint **out,
                                   ipcb_error *error) {
    ipcb_endpoint *ep = NULL;
    int32_t status;
    if (params == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    status = pipe_endpoint_alloc(params, PIPE_KIND_FIFO, &ep, error);
    if (status != IPCB_OK) return status;

    if (ep->role == IPCB_ROLE_CREATOR) {
        /* The time too: a FIFO a crashed worker left in a run folder never meets a new one. */
        const char *dir = NULL;
        char prefix[32];
        snprintf(prefix, sizeof prefix, "fifo-%lx", (unsigned long)(posix_now_ns() & 0xffffff));
        status = private_folder(params->runtime_dir, "fifo", ep->owned_dir, sizeof ep->owned_dir,
                                &dir, error);
        if (status == IPCB_OK)
            status = private_object_path(dir, prefix, &fifo_counter, ep->path, sizeof ep->path,
                                         "the room for a FIFO's path", error);
        if (status != IPCB_OK) {
            pipe_close(ep);
            return status;
        }
        if (mkfifo(ep->path, 0600) != 0) {
            int e = errno;
            ep->path[0] = '\0';
            pipe_close(ep);
            return ipcb_fail_errno(error, e, "mkfifo in %s", dir);
        }
    } else {
        struct stat st;
        const char *address = params->address;
        if (address == NULL || address[0] != '/' || strlen(address) >= sizeof ep->path) {
            pipe_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "pipe.fifo address '%s' is not an absolute FIFO path",
                             address ? address : "(null)");
        }
        if (stat(address, &st) != 0 || !S_ISFIFO(st.st_mode)) {
            int e = errno;
            pipe_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, e,
                             "pipe.fifo address '%s' is not an existing FIFO", address);
        }
        strcpy(ep->path, address);
    }
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL fifo_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                             ipcb_error *error) {
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    if (strlen(ep->path) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer of %zu bytes is too small", cap);
    strcpy(buf, ep->path);
    return IPCB_OK;
}

static int32_t open_writer(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    for (;;) {
        int fd = open(ep->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno == ENXIO) { /* no reader yet */
            if (deadline >= 0 && posix_now_ns() > deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0,
                                 "timed out waiting for a reader to open FIFO %s", ep->path);
            posix_pause_us(200);
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == ENOENT)
            return ipcb_fail(error, IPCB_E_CLOSED, ENOENT, "FIFO %s was removed by its creator",
                             ep->path);
        return ipcb_fail_errno(error, errno, "open FIFO %s for writing", ep->path);
    }
}

static int32_t IPCB_CALL fifo_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    int32_t status;
    int fd;
    if (ep == NULL || ep->fd >= 0)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "connect needs an unconnected endpoint");
    if (ep->direction == IPCB_DIR_RECV) {
        fd = open(ep->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return ipcb_fail_errno(error, errno, "open FIFO %s for reading", ep->path);
        ep->fd = fd;
        if ((status = pipe_apply_size(ep, fd, error)) != IPCB_OK) return status;
        if ((status = pipe_recv_hello(fd, deadline, error)) != IPCB_OK) return status;
        return pipe_set_blocking(fd, error);
    }
    fd = open_writer(ep, deadline, error);
    if (fd < 0) return fd; /* a status code */
    ep->fd = fd;
    if ((status = pipe_apply_size(ep, fd, error)) != IPCB_OK) return status;
    if ((status = pipe_set_blocking(fd, error)) != IPCB_OK) return status;
    return pipe_send_hello(fd, error);
}

static int32_t IPCB_CALL fifo_remove_address(const char *address, ipcb_error *error) {
    struct stat st;
    if (address == NULL || address[0] != '/') return IPCB_OK;
    if (lstat(address, &st) == 0 && S_ISFIFO(st.st_mode) && unlink(address) != 0)
        return ipcb_fail_errno(error, errno, "unlink %s", address);
    return IPCB_OK;
}

const ipcb_transport pipe_fifo_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = PIPE_OPTION_COUNT,
    .id = "pipe.fifo",
    .description = "named pipe (mkfifo, 0600) in a private directory, one direction per FIFO",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = pipe_options,
    .open = fifo_open,
    .export_address = fifo_export_address,
    .connect = fifo_connect,
    .send = pipe_send,
    .recv = pipe_recv,
    .close = pipe_close,
    .query_settings = pipe_query_settings,
    .remove_address = fifo_remove_address,
    .get_extension = NULL,
    .borrow = pipe_borrow,
    .publish = pipe_publish,
    .send_batch = pipe_send_batch,
    .event_source = pipe_event_source,
    .try_send = pipe_try_send,
    .try_recv = pipe_try_recv,
};
