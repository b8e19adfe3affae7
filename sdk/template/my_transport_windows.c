/*
 * The SDK template for Windows: "mytransport.stream", a named pipe in byte mode, in plain C.
 * Copy it, rename MY_PLUGIN_NAME, and replace the pipe calls with your transport's. The contract
 * (sdk/include/ipcbench/transport.h) and its essentials are those of my_transport.c: a CREATOR
 * makes the object and publishes an address, a CONNECTOR reaches it; open() never waits for the
 * peer, connect() does within its timeout; send() sends everything or fails; recv() returns 1..cap
 * bytes or a status; every failure names the problem; close() releases everything.
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h" /* ipcb_fail() */
#include "ipcbench/transport.h"

#ifndef MY_PLUGIN_NAME
#define MY_PLUGIN_NAME "mytransport" /* also the prefix of every transport id */
#endif
#define PIPE_PREFIX "\\\\.\\pipe\\" MY_PLUGIN_NAME "-"

/* The endpoint is yours: the host only ever holds a pointer to it. */
struct ipcb_endpoint {
    uint32_t role;
    HANDLE pipe;
    HANDLE event; /* for the creator's overlapped ConnectNamedPipe, bounded by the timeout */
    char name[128];
};

/* Windows' own words for an error code, after the message. */
static int32_t fail_win32(ipcb_error *error, DWORD code, const char *what) {
    char text[128] = "";
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, text,
                   sizeof text, NULL);
    text[strcspn(text, "\r\n")] = '\0';
    if (code == ERROR_BROKEN_PIPE || code == ERROR_NO_DATA || code == ERROR_PIPE_NOT_CONNECTED)
        return ipcb_fail(error, IPCB_E_CLOSED, (int)code, "the peer closed the pipe");
    return ipcb_fail(error, IPCB_E_SYSTEM, (int)code, "%s: %s (error %lu)", what, text,
                     (unsigned long)code);
}

static DWORD timeout_ms(int64_t timeout_ns) {
    return timeout_ns < 0 ? INFINITE : (DWORD)((timeout_ns + 999999) / 1000000);
}

static int32_t IPCB_CALL my_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                 ipcb_error *error) {
    ipcb_endpoint *ep;
    static volatile LONG counter;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if (p->option_count > 0) /* this template declares no options */
        return ipcb_fail(error, IPCB_E_UNKNOWN_OPTION, 0, "unknown option '%s' (none are known)",
                         p->options[0].key);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "out of memory");
    ep->role = p->role;
    if (p->role == IPCB_ROLE_CREATOR) {
        /* A name of this process; FILE_FLAG_FIRST_PIPE_INSTANCE refuses one that exists. A real
         * transport should add random bits and a DACL for the current user only. */
        snprintf(ep->name, sizeof ep->name, PIPE_PREFIX "%lu-%ld-%llu",
                 (unsigned long)GetCurrentProcessId(), (long)InterlockedIncrement(&counter),
                 (unsigned long long)GetTickCount64());
        ep->pipe = CreateNamedPipeA(
            ep->name, PIPE_ACCESS_DUPLEX | FILE_FLAG_FIRST_PIPE_INSTANCE | FILE_FLAG_OVERLAPPED,
            PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 65536, 65536, 0, NULL);
        ep->event = CreateEventA(NULL, TRUE, FALSE, NULL);
        if (ep->pipe == INVALID_HANDLE_VALUE || ep->event == NULL) {
            DWORD code = GetLastError();
            if (ep->pipe == INVALID_HANDLE_VALUE) ep->pipe = NULL;
            if (ep->event) CloseHandle(ep->event);
            if (ep->pipe) CloseHandle(ep->pipe);
            free(ep);
            return fail_win32(error, code, "CreateNamedPipe");
        }
    } else {
        if (p->address == NULL || strncmp(p->address, PIPE_PREFIX, strlen(PIPE_PREFIX)) != 0 ||
            strlen(p->address) >= sizeof ep->name) {
            free(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "'%s' is not a " MY_PLUGIN_NAME " pipe name (" PIPE_PREFIX "...)",
                             p->address ? p->address : "(null)");
        }
        strcpy(ep->name, p->address);
    }
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL my_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                           ipcb_error *error) {
    if (ep == NULL || ep->role != IPCB_ROLE_CREATOR || strlen(ep->name) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator and room");
    strcpy(buf, ep->name);
    return IPCB_OK;
}

static int32_t IPCB_CALL my_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    ULONGLONG deadline = GetTickCount64() + timeout_ms(timeout_ns);
    if (ep->role == IPCB_ROLE_CREATOR) {
        OVERLAPPED ov;
        DWORD ignored;
        memset(&ov, 0, sizeof ov);
        ov.hEvent = ep->event;
        if (ConnectNamedPipe(ep->pipe, &ov) || GetLastError() == ERROR_PIPE_CONNECTED)
            return IPCB_OK;
        if (GetLastError() != ERROR_IO_PENDING)
            return fail_win32(error, GetLastError(), "ConnectNamedPipe");
        if (WaitForSingleObject(ep->event, timeout_ms(timeout_ns)) == WAIT_TIMEOUT) {
            CancelIoEx(ep->pipe, &ov);
            GetOverlappedResult(ep->pipe, &ov, &ignored, TRUE);
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "no peer opened %s in time", ep->name);
        }
        return GetOverlappedResult(ep->pipe, &ov, &ignored, FALSE)
                   ? IPCB_OK
                   : fail_win32(error, GetLastError(), "ConnectNamedPipe");
    }
    for (;;) { /* the creator may not have called ConnectNamedPipe yet: retry until the deadline */
        ep->pipe = CreateFileA(ep->name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                               FILE_FLAG_OVERLAPPED, NULL);
        if (ep->pipe != INVALID_HANDLE_VALUE) return IPCB_OK;
        ep->pipe = NULL;
        if (GetLastError() != ERROR_PIPE_BUSY && GetLastError() != ERROR_FILE_NOT_FOUND)
            return fail_win32(error, GetLastError(), "CreateFile");
        if (timeout_ns >= 0 && GetTickCount64() >= deadline)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s did not accept in time", ep->name);
        Sleep(1);
    }
}

/* One overlapped ReadFile or WriteFile, bounded by the timeout. */
static int32_t transfer(ipcb_endpoint *ep, int writing, void *buf, DWORD len, DWORD *done,
                        int64_t timeout_ns, ipcb_error *error) {
    OVERLAPPED ov;
    BOOL ok;
    memset(&ov, 0, sizeof ov);
    ov.hEvent = ep->event ? ep->event : (ep->event = CreateEventA(NULL, TRUE, FALSE, NULL));
    ResetEvent(ov.hEvent);
    ok = writing ? WriteFile(ep->pipe, buf, len, NULL, &ov)
                 : ReadFile(ep->pipe, buf, len, NULL, &ov);
    if (!ok && GetLastError() != ERROR_IO_PENDING)
        return fail_win32(error, GetLastError(), writing ? "WriteFile" : "ReadFile");
    if (WaitForSingleObject(ov.hEvent, timeout_ms(timeout_ns)) == WAIT_TIMEOUT)
        CancelIoEx(ep->pipe, &ov);
    if (!GetOverlappedResult(ep->pipe, &ov, done, TRUE) &&
        GetLastError() != ERROR_OPERATION_ABORTED)
        return fail_win32(error, GetLastError(), writing ? "WriteFile" : "ReadFile");
    if (*done == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
    return IPCB_OK;
}

static int32_t IPCB_CALL my_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                                 ipcb_error *error) {
    size_t sent = 0;
    while (sent < len) {
        DWORD n = 0;
        int32_t s = transfer(ep, 1, (char *)buf + sent, (DWORD)(len - sent), &n, timeout_ns, error);
        if (s == IPCB_E_TIMEOUT && sent > 0)
            return ipcb_fail(error, IPCB_E_SYSTEM, 0, "timed out in the middle of a message");
        if (s != IPCB_OK) return s;
        sent += n;
    }
    return IPCB_OK;
}

static int32_t IPCB_CALL my_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                 int64_t timeout_ns, ipcb_error *error) {
    DWORD n = 0;
    int32_t s =
        transfer(ep, 0, buf, cap > 0x40000000u ? 0x40000000u : (DWORD)cap, &n, timeout_ns, error);
    *len = s == IPCB_OK ? n : 0;
    return s;
}

/* A named pipe disappears with its last handle: nothing to remove afterwards. */
static void IPCB_CALL my_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->pipe) CloseHandle(ep->pipe);
    if (ep->event) CloseHandle(ep->event);
    free(ep);
}

static const ipcb_transport my_stream = {
    .struct_size = sizeof(ipcb_transport), /* always sizeof: the host reads what you built */
    .option_count = 0,
    .id = MY_PLUGIN_NAME ".stream",
    .description = "Windows named pipe, byte mode (the SDK template)",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX |
            IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = NULL,
    .open = my_open,
    .export_address = my_export_address,
    .connect = my_connect,
    .send = my_send,
    .recv = my_recv,
    .close = my_close,
    .query_settings = NULL,
    .remove_address = NULL, /* nothing named outlives its processes */
    .get_extension = NULL,
};

static const ipcb_transport *const my_transports[] = {&my_stream};

static const ipcb_plugin my_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = MY_PLUGIN_NAME,
    .version = "0.1.0",
    .description = "template transport plugin (Windows)",
    .transport_count = 1,
    .reserved0 = 0,
    .transports = my_transports,
    .shutdown = NULL,
};

/* The one exported symbol. Return NULL (with a message in *error) to refuse a host. */
IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &my_plugin;
}
