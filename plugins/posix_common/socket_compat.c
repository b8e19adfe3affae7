#define _GNU_SOURCE
#include "socket_compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipcbench/error_format.h"

#ifdef _WIN32
#include "win_io.h" /* win_error_text */
#else
#include <fcntl.h>
#endif

int32_t sock_startup(ipcb_error *error) {
#ifdef _WIN32
    /* WSAStartup counts its calls: a second one from a racing thread is harmless. */
    static volatile LONG started;
    WSADATA data;
    int rc;
    if (started) return IPCB_OK;
    rc = WSAStartup(MAKEWORD(2, 2), &data);
    if (rc != 0) return sock_fail(error, rc, "WSAStartup");
    InterlockedExchange(&started, 1);
#else
    (void)error;
#endif
    return IPCB_OK;
}

void sock_set_nonblocking(int fd, int on) {
#ifdef _WIN32
    u_long mode = on ? 1 : 0;
    ioctlsocket((SOCKET)fd, FIONBIO, &mode);
#else
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
#endif
}

void sock_allow_rebind(int fd) {
    int one = 1;
#ifdef _WIN32
    setsockopt((SOCKET)fd, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&one, sizeof one);
#else
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
#endif
}

const char *sock_strerror(int code) {
#ifdef _WIN32
    static __thread char text[160];
    if (win_error_text((DWORD)code, text, sizeof text) == NULL)
        snprintf(text, sizeof text, "Winsock error %d", code);
    return text;
#else
    return strerror(code);
#endif
}

int32_t sock_fail(ipcb_error *error, int code, const char *format, ...) {
    if (error != NULL) {
        va_list args;
        size_t used;
        error->sys_errno = code;
        va_start(args, format);
        /* va_start is just above; clang-analyzer 14 loses it in this variadic definition. */
        /* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
        used = strlen(error->message);
        snprintf(error->message + used, sizeof error->message - used, ": %s", sock_strerror(code));
    }
    return IPCB_E_SYSTEM;
}
