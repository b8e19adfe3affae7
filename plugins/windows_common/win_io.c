#define _CRT_RAND_S
#include "win_io.h"

#include <sddl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"

int64_t win_now_ns(void) {
    static LARGE_INTEGER frequency;
    LARGE_INTEGER now;
    if (frequency.QuadPart == 0) QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&now);
    return (int64_t)(now.QuadPart / frequency.QuadPart) * 1000000000 +
           (int64_t)(now.QuadPart % frequency.QuadPart) * 1000000000 / frequency.QuadPart;
}

int64_t win_deadline(int64_t timeout_ns) {
    return timeout_ns < 0 ? -1 : win_now_ns() + timeout_ns;
}

DWORD win_left_ms(int64_t deadline_ns) {
    int64_t left;
    if (deadline_ns < 0) return INFINITE;
    left = deadline_ns - win_now_ns();
    if (left <= 0) return 0;
    left = (left + 999999) / 1000000;
    return left >= (int64_t)INFINITE ? INFINITE - 1 : (DWORD)left;
}

const char *win_error_text(DWORD code, char *text, size_t cap) {
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code,
                             0, text, (DWORD)cap, NULL);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
        text[--n] = '\0';
    return n > 0 ? text : NULL;
}

int32_t win_fail(ipcb_error *error, DWORD code, const char *format, ...) {
    if (error != NULL) {
        va_list args;
        size_t used;
        char text[160] = "";
        const char *words = win_error_text(code, text, sizeof text);
        error->sys_errno = (int)code;
        va_start(args, format);
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
        used = strlen(error->message);
        snprintf(error->message + used, sizeof error->message - used, ": %s (error %lu)",
                 words ? words : "unknown error", (unsigned long)code);
    }
    return code == ERROR_NOT_ENOUGH_MEMORY || code == ERROR_OUTOFMEMORY ? IPCB_E_NO_MEMORY
                                                                        : IPCB_E_SYSTEM;
}

int32_t win_owner_only(SECURITY_ATTRIBUTES *sa, ipcb_error *error) {
    HANDLE token = NULL;
    char buffer[256];
    DWORD size = 0;
    char *sid = NULL;
    char sddl[256];
    PSECURITY_DESCRIPTOR descriptor = NULL;
    BOOL ok;
    memset(sa, 0, sizeof *sa);
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return win_fail(error, GetLastError(), "OpenProcessToken");
    ok = GetTokenInformation(token, TokenUser, buffer, sizeof buffer, &size) &&
         ConvertSidToStringSidA(((TOKEN_USER *)(void *)buffer)->User.Sid, &sid);
    CloseHandle(token);
    if (!ok) return win_fail(error, GetLastError(), "reading the current user's SID");
    /* P: protected, no entries inherited from elsewhere; GA: every right, for this user only. */
    snprintf(sddl, sizeof sddl, "D:P(A;;GA;;;%s)", sid);
    LocalFree(sid);
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(sddl, SDDL_REVISION_1, &descriptor,
                                                              NULL))
        return win_fail(error, GetLastError(), "building a private security descriptor");
    sa->nLength = sizeof *sa;
    sa->lpSecurityDescriptor = descriptor;
    sa->bInheritHandle = FALSE;
    return IPCB_OK;
}

void win_free_owner_only(SECURITY_ATTRIBUTES *sa) {
    if (sa->lpSecurityDescriptor) LocalFree(sa->lpSecurityDescriptor);
    sa->lpSecurityDescriptor = NULL;
}

int32_t win_random_hex(char out[33], ipcb_error *error) {
    int i;
    for (i = 0; i < 4; ++i) {
        unsigned int value = 0;
        if (rand_s(&value) != 0) return ipcb_fail(error, IPCB_E_SYSTEM, 0, "rand_s failed");
        snprintf(out + (size_t)i * 8, 9, "%08x", value);
    }
    return IPCB_OK;
}
