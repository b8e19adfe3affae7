#define _GNU_SOURCE
#include "posix_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipcbench/error_format.h"

#ifdef _WIN32
#include "socket_compat.h" /* on Windows only sockets are waited on: WSAPoll */
#else
#include <poll.h>
#endif

int64_t posix_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t posix_deadline(int64_t timeout_ns) {
    return timeout_ns < 0 ? -1 : posix_now_ns() + timeout_ns;
}

int64_t posix_left(int64_t deadline_ns) {
    int64_t left;
    if (deadline_ns < 0) return -1;
    left = deadline_ns - posix_now_ns();
    return left < 0 ? 0 : left;
}

#ifdef _WIN32
int32_t posix_wait_fd(int fd, short events, int64_t deadline_ns, ipcb_error *error) {
    for (;;) {
        WSAPOLLFD pfd;
        int rc, timeout_ms = -1;
        pfd.fd = (SOCKET)fd;
        pfd.events =
            (short)((events & POLLIN ? POLLRDNORM : 0) | (events & POLLOUT ? POLLWRNORM : 0));
        pfd.revents = 0;
        if (deadline_ns >= 0) {
            int64_t left = (posix_left(deadline_ns) + 999999) / 1000000;
            timeout_ms = left > 0x7fffffff ? 0x7fffffff : (int)left;
        }
        rc = WSAPoll(&pfd, 1, timeout_ms);
        if (rc > 0) {
            if (pfd.revents & POLLNVAL)
                return ipcb_fail(error, IPCB_E_INVALID, WSAENOTSOCK, "socket is closed");
            return IPCB_OK;
        }
        if (rc == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
        return sock_fail(error, WSAGetLastError(), "WSAPoll");
    }
}

void posix_pause_us(long microseconds) {
    Sleep((DWORD)((microseconds + 999) / 1000));
}
#else
int32_t posix_wait_fd(int fd, short events, int64_t deadline_ns, ipcb_error *error) {
    for (;;) {
        struct pollfd pfd;
        struct timespec ts;
        struct timespec *tsp = NULL;
        int rc;
        pfd.fd = fd;
        pfd.events = events;
        pfd.revents = 0;
        if (deadline_ns >= 0) {
            int64_t left = posix_left(deadline_ns);
            ts.tv_sec = (time_t)(left / 1000000000);
            ts.tv_nsec = (long)(left % 1000000000);
            tsp = &ts;
        }
        rc = ppoll(&pfd, 1, tsp, NULL);
        if (rc > 0) {
            if (pfd.revents & POLLNVAL)
                return ipcb_fail(error, IPCB_E_INVALID, EBADF, "descriptor is closed");
            return IPCB_OK;
        }
        if (rc == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
        if (errno != EINTR) return ipcb_fail_errno(error, errno, "ppoll");
    }
}

void posix_pause_us(long microseconds) {
    struct timespec ts;
    ts.tv_sec = microseconds / 1000000;
    ts.tv_nsec = (microseconds % 1000000) * 1000;
    nanosleep(&ts, NULL);
}
#endif

long posix_read_proc_long(const char *path) {
    long value = -1;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%ld", &value) != 1) value = -1;
        fclose(f);
    }
    return value;
}
