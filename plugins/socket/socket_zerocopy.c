/* socket.tcp zerocopy=1: MSG_ZEROCOPY sends. The kernel pins the sender's pages instead of
 * copying them and reports on the socket's error queue when it no longer needs them. The send()
 * contract lets the host reuse its buffer on return, so each send waits for its completions.
 * Over loopback the kernel must still copy when the data reaches the local receiver, and says
 * so (SO_EE_CODE_ZEROCOPY_COPIED): the count is logged at close, so nobody mistakes a loopback
 * figure for a zero-copy one. It pays off only for large writes to a real NIC. */
#define _GNU_SOURCE
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "socket_endpoint.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

int32_t socket_enable_zerocopy(ipcb_endpoint *ep, ipcb_error *error) {
    int one = 1;
    if (setsockopt(ep->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, errno,
                         "%s: option zerocopy=1: this kernel refuses SO_ZEROCOPY (%s); use "
                         "zerocopy=0",
                         ep->id, strerror(errno));
    return IPCB_OK;
}

/* Reads completion notifications until every zerocopy send so far is complete. */
static int32_t wait_completions(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    while (ep->zc_completed < ep->zc_issued) {
        char control[128];
        struct msghdr msg;
        struct cmsghdr *cm;
        memset(&msg, 0, sizeof msg);
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        if (recvmsg(ep->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
            struct pollfd p = {ep->fd, 0, 0}; /* POLLERR is always reported */
            int64_t left = deadline >= 0 ? posix_left(deadline) : 1000000000;
            if (errno == EINTR) continue;
            if (errno != EAGAIN) return ipcb_fail_errno(error, errno, "%s: MSG_ERRQUEUE", ep->id);
            if (left <= 0)
                return ipcb_fail(error, IPCB_E_SYSTEM, 0,
                                 "%s: zerocopy completions did not come in time", ep->id);
            poll(&p, 1, (int)(left / 1000000 + 1 > 1000 ? 1000 : left / 1000000 + 1));
            continue;
        }
        for (cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm)) {
            const struct sock_extended_err *e;
            uint32_t n;
            if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
                  (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
                continue;
            e = (const struct sock_extended_err *)(const void *)CMSG_DATA(cm);
            if (e->ee_origin != SO_EE_ORIGIN_ZEROCOPY) continue;
            n = e->ee_data - e->ee_info + 1; /* a range of send calls */
            ep->zc_completed += n;
            if (e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) ep->zc_copied += n;
        }
    }
    return IPCB_OK;
}

int32_t socket_zerocopy_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                             ipcb_error *error) {
    const char *p = (const char *)buf;
    int64_t deadline = posix_deadline(timeout_ns);
    while (len > 0) {
        ssize_t n = send(ep->fd, p, len, MSG_NOSIGNAL | MSG_ZEROCOPY);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            ++ep->zc_issued;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == ENOBUFS) {
            /* Too many pages pinned (optmem): let completions release some. */
            int32_t s = wait_completions(ep, deadline, error);
            if (s != IPCB_OK) return s;
        } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            return ipcb_fail(error, IPCB_E_CLOSED, errno, "%s: the peer closed the connection",
                             ep->id);
        } else {
            return ipcb_fail_errno(error, errno, "%s: send(MSG_ZEROCOPY)", ep->id);
        }
    }
    return wait_completions(ep, deadline, error);
}

void socket_zerocopy_report(ipcb_endpoint *ep) {
    char line[200];
    if (ep->host == NULL || ep->host->log == NULL || ep->zc_issued == 0) return;
    snprintf(line, sizeof line,
             "%s zerocopy: %llu of %llu MSG_ZEROCOPY sends were copied by the kernel anyway%s",
             ep->id, (unsigned long long)ep->zc_copied, (unsigned long long)ep->zc_issued,
             ep->zc_copied ? " (loopback always copies)" : "");
    ep->host->log(ep->host, IPCB_LOG_INFO, line);
}
