/* Helpers shared by the built-in POSIX plugins (compiled into each plugin, never exported):
 * monotonic deadlines, waiting on a descriptor (option values: plugin_options.h). */
#ifndef IPCB_POSIX_IO_H
#define IPCB_POSIX_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ipcbench/transport.h"
#include "plugin_options.h"

int64_t posix_now_ns(void);
/* A CLOCK_MONOTONIC deadline for a timeout (ns); -1 for IPCB_WAIT_FOREVER. */
int64_t posix_deadline(int64_t timeout_ns);
/* Nanoseconds left until deadline (>= 0), or -1 for no deadline. */
int64_t posix_left(int64_t deadline_ns);

/* Waits until fd has one of `events` (POLLIN/POLLOUT; on Windows fd is a socket, waited on with
 * WSAPoll), or until deadline_ns (< 0: forever).
 * IPCB_OK when ready (or hung up: the next read/write tells), IPCB_E_TIMEOUT, or an error. */
int32_t posix_wait_fd(int fd, short events, int64_t deadline_ns, ipcb_error *error);

/* Sleeps a short while (for polling loops without a descriptor). */
void posix_pause_us(long microseconds);

/* Reads one integer from a /proc file (for kernel limits); -1 when unreadable. */
long posix_read_proc_long(const char *path);

#endif
