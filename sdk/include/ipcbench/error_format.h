/*
 * Helper for plugin authors: fill an ipcb_error and return the status in one statement.
 *
 *     return ipcb_fail(error, IPCB_E_BAD_OPTION, 0, "option buffer_size=%s: expected bytes", v);
 *
 * Header-only, C99, standard C library only (errno.h: mingw-w64 and MSVC define the POSIX names
 * used here). Not part of the ABI contract (transport.h is).
 */
#ifndef IPCBENCH_ERROR_FORMAT_H
#define IPCBENCH_ERROR_FORMAT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipcbench/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mingw-w64: the C runtime's vsnprintf may not know %zu or %lld; mingw's own C99 one does, and
 * GCC checks formats against it as gnu_printf. */
#if defined(__MINGW32__)
#define IPCB_PRINTF_ARCHETYPE gnu_printf
#define IPCB_VSNPRINTF __mingw_vsnprintf
#else
#define IPCB_PRINTF_ARCHETYPE printf
#define IPCB_VSNPRINTF vsnprintf
#endif

#if defined(__GNUC__)
__attribute__((format(IPCB_PRINTF_ARCHETYPE, 4, 5)))
#endif
static inline int32_t
ipcb_fail(ipcb_error *error, int32_t status, int sys_errno, const char *format, ...) {
    if (error != NULL) {
        va_list args;
        error->sys_errno = sys_errno;
        va_start(args, format);
        IPCB_VSNPRINTF(error->message, sizeof error->message, format, args);
        va_end(args);
    }
    return status;
}

/* The status a failed OS call's errno means where it has one of its own, else IPCB_E_SYSTEM:
 *   ENOMEM                          IPCB_E_NO_MEMORY
 *   EPIPE, ECONNRESET, ENOTCONN     IPCB_E_CLOSED   (the peer is gone)
 *   EMSGSIZE                        IPCB_E_TOO_BIG
 *   ETIMEDOUT                       IPCB_E_TIMEOUT  (mq_timedsend, SO_SNDTIMEO: the wait ran out)
 * EAGAIN/EWOULDBLOCK are not mapped: from a non-blocking call they mean "not yet", not that the
 * caller's timeout ran out; return IPCB_E_TIMEOUT yourself when it has. A stream send that times
 * out after part of a message went must return IPCB_E_SYSTEM (transport.h), not this. */
static inline int32_t ipcb_status_from_errno(int sys_errno) {
    switch (sys_errno) {
        case ENOMEM: return IPCB_E_NO_MEMORY;
        case EPIPE:
        case ECONNRESET:
        case ENOTCONN: return IPCB_E_CLOSED;
        case EMSGSIZE: return IPCB_E_TOO_BIG;
        case ETIMEDOUT: return IPCB_E_TIMEOUT;
        default: return IPCB_E_SYSTEM;
    }
}

/* Like ipcb_fail for a failed OS call: appends ": <strerror(sys_errno)>" to the message and
 * returns ipcb_status_from_errno(sys_errno). */
#if defined(__GNUC__)
__attribute__((format(IPCB_PRINTF_ARCHETYPE, 3, 4)))
#endif
static inline int32_t
ipcb_fail_errno(ipcb_error *error, int sys_errno, const char *format, ...) {
    if (error != NULL) {
        va_list args;
        size_t used;
        error->sys_errno = sys_errno;
        va_start(args, format);
        IPCB_VSNPRINTF(error->message, sizeof error->message, format, args);
        va_end(args);
        used = strlen(error->message);
        snprintf(error->message + used, sizeof error->message - used, ": %s", strerror(sys_errno));
    }
    return ipcb_status_from_errno(sys_errno);
}

#ifdef __cplusplus
}
#endif

#endif /* IPCBENCH_ERROR_FORMAT_H */
