/* Helpers shared by the built-in POSIX plugins (compiled into each plugin, never exported):
 * monotonic deadlines, waiting on a descriptor, byte-count and boolean option values. */
#ifndef IPCB_POSIX_IO_H
#define IPCB_POSIX_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ipcbench/transport.h"

int64_t posix_now_ns(void);
/* A CLOCK_MONOTONIC deadline for a timeout (ns); -1 for IPCB_WAIT_FOREVER. */
int64_t posix_deadline(int64_t timeout_ns);
/* Nanoseconds left until deadline (>= 0), or -1 for no deadline. */
int64_t posix_left(int64_t deadline_ns);

/* Waits until fd has one of `events` (POLLIN/POLLOUT), or until deadline_ns (< 0: forever).
 * IPCB_OK when ready (or hung up: the next read/write tells), IPCB_E_TIMEOUT, or an error. */
int32_t posix_wait_fd(int fd, short events, int64_t deadline_ns, ipcb_error *error);

/* Sleeps a short while (for polling loops without a descriptor). */
void posix_pause_us(long microseconds);

/* Parses "65536", "64K", "1M" (binary multiples) into *out; 0 on success. */
int posix_parse_bytes(const char *text, uint64_t max, uint64_t *out);
/* Parses "1", "0", "true", "false", "on", "off", "yes", "no"; 0 on success. */
int posix_parse_bool(const char *text, int *out);

/* Reads one integer from a /proc file (for kernel limits); -1 when unreadable. */
long posix_read_proc_long(const char *path);

/* Checks params' option keys against a NULL-terminated list; IPCB_E_UNKNOWN_OPTION naming the
 * first unknown key and listing the known ones. */
int32_t posix_check_option_keys(const ipcb_open_params *params, const ipcb_option_desc *known,
                                uint32_t known_count, const char *transport_id, ipcb_error *error);
/* The value of option `key`, or NULL when the user did not set it. */
const char *posix_option(const ipcb_open_params *params, const char *key);

#endif
