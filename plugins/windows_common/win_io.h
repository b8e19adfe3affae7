/* Helpers shared by the built-in Windows plugins (compiled into each plugin, never exported):
 * QueryPerformanceCounter deadlines, Windows' own words for an error code, a security descriptor
 * for the current user only, and unguessable object names. */
#ifndef IPCB_WIN_IO_H
#define IPCB_WIN_IO_H

#include <windows.h>

#include <stddef.h>
#include <stdint.h>

#include "ipcbench/transport.h"

int64_t win_now_ns(void);
/* A deadline for a timeout (ns); -1 for IPCB_WAIT_FOREVER. */
int64_t win_deadline(int64_t timeout_ns);
/* Milliseconds left until deadline_ns, rounded up, for the Wait functions; INFINITE for none. */
DWORD win_left_ms(int64_t deadline_ns);

/* Windows' own words for an error code (FormatMessage, trailing line end removed) in text, or
 * NULL when it has none. Winsock codes are Windows error codes too. */
const char *win_error_text(DWORD code, char *text, size_t cap);

/* Like ipcb_fail for a failed Windows call: the message, then ": <FormatMessage text> (error N)";
 * status is IPCB_E_SYSTEM unless the code has its own (ERROR_NOT_ENOUGH_MEMORY: IPCB_E_NO_MEMORY).
 */
int32_t win_fail(ipcb_error *error, DWORD code, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* SECURITY_ATTRIBUTES whose DACL grants access to the current user only (not inherited by
 * children). win_free_owner_only releases the descriptor. IPCB_OK or an error. */
int32_t win_owner_only(SECURITY_ATTRIBUTES *sa, ipcb_error *error);
void win_free_owner_only(SECURITY_ATTRIBUTES *sa);

/* 128 random bits as 32 hex digits (RtlGenRandom), for names other users cannot guess. */
int32_t win_random_hex(char out[33], ipcb_error *error);

#endif
