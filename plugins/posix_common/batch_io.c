#define _GNU_SOURCE
#include "batch_io.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "ipcbench/error_format.h"

int32_t batch_check_messages(const ipcb_msg *msgs, uint32_t count, ipcb_error *error) {
    uint32_t i;
    for (i = 0; i < count; ++i)
        if (msgs[i].data == NULL || msgs[i].len == 0)
            return ipcb_fail(error, IPCB_E_INVALID, 0, "message %u of the batch is empty", i);
    return IPCB_OK;
}

int batch_sendmmsg(int fd, const ipcb_msg *msgs, uint32_t count, uint32_t *sent) {
    struct mmsghdr hdr[BATCH_IO_CHUNK];
    struct iovec iov[BATCH_IO_CHUNK];
    *sent = 0;
    while (*sent < count) {
        uint32_t n = count - *sent < BATCH_IO_CHUNK ? count - *sent : BATCH_IO_CHUNK;
        uint32_t i;
        int r;
        memset(hdr, 0, n * sizeof hdr[0]);
        for (i = 0; i < n; ++i) {
            iov[i].iov_base = msgs[*sent + i].data;
            iov[i].iov_len = (size_t)msgs[*sent + i].len;
            hdr[i].msg_hdr.msg_iov = &iov[i];
            hdr[i].msg_hdr.msg_iovlen = 1;
        }
        r = sendmmsg(fd, hdr, n, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR || errno == ENOBUFS) continue;
            return errno;
        }
        *sent += (uint32_t)r;
    }
    return 0;
}

int batch_writev(int fd, const ipcb_msg *msgs, uint32_t count, uint32_t *sent) {
    struct iovec iov[BATCH_IO_CHUNK];
    uint32_t next = 0; /* first message not yet in iov */
    size_t skip = 0;   /* bytes of msgs[*sent] already written */
    *sent = 0;
    while (*sent < count) {
        uint32_t n = 0, k;
        ssize_t w;
        size_t left;
        for (k = *sent; k < count && n < BATCH_IO_CHUNK; ++k, ++n) {
            size_t off = k == *sent ? skip : 0;
            iov[n].iov_base = (char *)msgs[k].data + off;
            iov[n].iov_len = (size_t)msgs[k].len - off;
        }
        next = k;
        w = writev(fd, iov, (int)n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        /* Account whole messages, keep the offset into a partial one. */
        left = (size_t)w;
        while (*sent < next && left >= (size_t)msgs[*sent].len - skip) {
            left -= (size_t)msgs[*sent].len - skip;
            skip = 0;
            ++*sent;
        }
        skip += left;
    }
    return 0;
}

int batch_recvmmsg(int fd, ipcb_msg *msgs, uint32_t count, int flags, unsigned char *truncated) {
    struct mmsghdr hdr[BATCH_IO_CHUNK];
    struct iovec iov[BATCH_IO_CHUNK];
    uint32_t i;
    int r;
    if (count > BATCH_IO_CHUNK) count = BATCH_IO_CHUNK;
    memset(hdr, 0, count * sizeof hdr[0]);
    for (i = 0; i < count; ++i) {
        iov[i].iov_base = msgs[i].data;
        iov[i].iov_len = (size_t)msgs[i].len;
        hdr[i].msg_hdr.msg_iov = &iov[i];
        hdr[i].msg_hdr.msg_iovlen = 1;
    }
    do {
        r = recvmmsg(fd, hdr, count, MSG_WAITFORONE | flags, NULL);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return -errno;
    for (i = 0; i < (uint32_t)r; ++i) {
        truncated[i] = (hdr[i].msg_hdr.msg_flags & MSG_TRUNC) != 0;
        msgs[i].len = hdr[i].msg_len;
    }
    return r;
}
