/* pipe.named: a Windows named pipe, \\.\pipe\ipcbench-<pid>-<128 random bits>, made with
 * FILE_FLAG_FIRST_PIPE_INSTANCE (nobody can have created the name first and squat on it),
 * PIPE_REJECT_REMOTE_CLIENTS and a DACL for the current user only. Byte or message mode,
 * overlapped (timeouts honoured by waiting on the I/O) or blocking I/O. */
#include "pipe_named_windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "plugin_options.h"
#include "win_io.h"
#include "win_iocp.h"

#define NAME_PREFIX "\\\\.\\pipe\\ipcbench-"
#define NAME_CAP 128

struct ipcb_endpoint {
    uint32_t role;
    uint32_t direction;
    HANDLE pipe;
    HANDLE event; /* overlapped I/O: signalled when an operation completes */
    int message_mode;
    int overlapped;
    DWORD buffer_size;
    char name[NAME_CAP];
    int connected;
    win_iocp_binding iocp; /* ABI 1.2 completion, below */
};

const ipcb_option_desc pipe_named_options[PIPE_NAMED_OPTION_COUNT] = {
    {"mode", "byte",
     "byte: a byte stream (PIPE_TYPE_BYTE); message: each write is one message "
     "(PIPE_TYPE_MESSAGE), and a read into a smaller buffer continues it on the next read"},
    {"buffer_size", "65536",
     "the pipe's in and out buffer in bytes (suffixes K, M), a request the system may round"},
    {"io", "overlapped",
     "overlapped: FILE_FLAG_OVERLAPPED, waits bounded by the timeout; blocking: plain ReadFile "
     "and WriteFile (a receive timeout polls PeekNamedPipe; a send waits for room without a "
     "bound, so ipchost check fails its send-timeout: Windows has no wait for room on a "
     "synchronous pipe)"},
};

static int32_t parse_options(const ipcb_open_params *p, ipcb_endpoint *ep, ipcb_error *error) {
    const char *mode = plugin_option(p, "mode");
    const char *size = plugin_option(p, "buffer_size");
    const char *io = plugin_option(p, "io");
    uint64_t bytes = 65536;
    int32_t status = plugin_check_option_keys(p, pipe_named_options, PIPE_NAMED_OPTION_COUNT,
                                              "pipe.named", error);
    if (status != IPCB_OK) return status;
    if (mode && strcmp(mode, "byte") != 0 && strcmp(mode, "message") != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0, "option mode=%s: expected byte or message",
                         mode);
    if (io && strcmp(io, "overlapped") != 0 && strcmp(io, "blocking") != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option io=%s: expected overlapped or blocking", io);
    if (size && plugin_parse_bytes(size, (uint64_t)64 * 1024 * 1024, &bytes) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option buffer_size=%s: expected bytes from 1 to 64M (suffixes K, M)",
                         size);
    ep->message_mode = mode && strcmp(mode, "message") == 0;
    ep->overlapped = !(io && strcmp(io, "blocking") == 0);
    ep->buffer_size = (DWORD)bytes;
    return IPCB_OK;
}

/* Only names this plugin makes: the prefix, then digits, letters and dashes. */
static int valid_name(const char *address) {
    size_t i, n = strlen(NAME_PREFIX);
    if (address == NULL || strncmp(address, NAME_PREFIX, n) != 0 || strlen(address) >= NAME_CAP)
        return 0;
    for (i = n; address[i]; ++i) {
        char c = address[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-')) return 0;
    }
    return address[n] != '\0';
}

static int32_t create_pipe(ipcb_endpoint *ep, ipcb_error *error) {
    SECURITY_ATTRIBUTES sa;
    char random[33];
    DWORD type = ep->message_mode ? PIPE_TYPE_MESSAGE | PIPE_READMODE_MESSAGE
                                  : PIPE_TYPE_BYTE | PIPE_READMODE_BYTE;
    int32_t status = win_random_hex(random, error);
    if (status != IPCB_OK) return status;
    snprintf(ep->name, sizeof ep->name, NAME_PREFIX "%lu-%s", (unsigned long)GetCurrentProcessId(),
             random);
    status = win_owner_only(&sa, error);
    if (status != IPCB_OK) return status;
    ep->pipe = CreateNamedPipeA(ep->name,
                                PIPE_ACCESS_DUPLEX | FILE_FLAG_FIRST_PIPE_INSTANCE |
                                    (ep->overlapped ? FILE_FLAG_OVERLAPPED : 0),
                                type | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, ep->buffer_size,
                                ep->buffer_size, 0, &sa);
    win_free_owner_only(&sa);
    if (ep->pipe == INVALID_HANDLE_VALUE) {
        ep->pipe = NULL;
        return win_fail(error, GetLastError(), "CreateNamedPipe %s", ep->name);
    }
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_named_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                  ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, 0, "out of memory");
    ep->role = p->role;
    ep->direction = p->direction;
    status = parse_options(p, ep, error);
    if (status == IPCB_OK && ep->overlapped) {
        ep->event = CreateEventA(NULL, TRUE, FALSE, NULL);
        if (ep->event == NULL) status = win_fail(error, GetLastError(), "CreateEvent");
    }
    if (status == IPCB_OK && p->role == IPCB_ROLE_CREATOR) {
        status = create_pipe(ep, error);
    } else if (status == IPCB_OK) {
        if (!valid_name(p->address))
            status = ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                               "pipe.named address '%s' is not a pipe name this plugin makes "
                               "(" NAME_PREFIX "...)",
                               p->address ? p->address : "(null)");
        else
            strcpy(ep->name, p->address);
    }
    if (status != IPCB_OK) {
        pipe_named_close(ep);
        return status;
    }
    *out = ep;
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_named_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                            ipcb_error *error) {
    if (ep == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "only the creator has an address");
    if (strlen(ep->name) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer too small");
    strcpy(buf, ep->name);
    return IPCB_OK;
}

/* Waits for an overlapped operation started on ep->pipe; on timeout cancels it and reports what
 * it did all the same (a cancelled write may have moved some bytes). */
static int32_t finish_io(ipcb_endpoint *ep, OVERLAPPED *ov, int64_t deadline, DWORD *moved,
                         int *timed_out) {
    *timed_out = 0;
    if (WaitForSingleObject(ep->event, win_left_ms(deadline)) == WAIT_TIMEOUT) {
        CancelIoEx(ep->pipe, ov);
        *timed_out = 1;
    }
    if (!GetOverlappedResult(ep->pipe, ov, moved, TRUE)) {
        DWORD e = GetLastError();
        if (e == ERROR_OPERATION_ABORTED) return 0;
        SetLastError(e);
        return -1;
    }
    return 0;
}

/* One overlapped ReadFile or WriteFile of len bytes, waited for until the deadline (then
 * cancelled): 0 with *moved and *timed_out set, or -1 with GetLastError() saying why. A read
 * that filled the buffer with part of a longer message (ERROR_MORE_DATA) counts as done. */
static int overlapped_transfer(ipcb_endpoint *ep, int writing, void *buf, DWORD len,
                               int64_t deadline, DWORD *moved, int *timed_out) {
    OVERLAPPED ov;
    BOOL started;
    memset(&ov, 0, sizeof ov);
    /* The low bit keeps this transfer off a completion port the pipe may be bound to (the
     * event reports it): only the submissions' packets go there. */
    ov.hEvent = (HANDLE)((ULONG_PTR)ep->event | 1);
    ResetEvent(ep->event);
    started = writing ? WriteFile(ep->pipe, buf, len, NULL, &ov)
                      : ReadFile(ep->pipe, buf, len, NULL, &ov);
    *timed_out = 0;
    if (!started && GetLastError() != ERROR_IO_PENDING && GetLastError() != ERROR_MORE_DATA)
        return -1;
    if (finish_io(ep, &ov, deadline, moved, timed_out) != 0 && GetLastError() != ERROR_MORE_DATA)
        return -1;
    return 0;
}

static int32_t accept_peer(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    OVERLAPPED ov;
    DWORD ignored = 0;
    int timed_out = 0;
    if (!ep->overlapped) {
        /* Blocking: ConnectNamedPipe waits without a deadline; the connector arrives at once. */
        if (!ConnectNamedPipe(ep->pipe, NULL) && GetLastError() != ERROR_PIPE_CONNECTED)
            return win_fail(error, GetLastError(), "ConnectNamedPipe");
        return IPCB_OK;
    }
    memset(&ov, 0, sizeof ov);
    ov.hEvent = ep->event;
    ResetEvent(ep->event);
    if (ConnectNamedPipe(ep->pipe, &ov)) return IPCB_OK;
    if (GetLastError() == ERROR_PIPE_CONNECTED) return IPCB_OK;
    if (GetLastError() != ERROR_IO_PENDING)
        return win_fail(error, GetLastError(), "ConnectNamedPipe");
    if (finish_io(ep, &ov, deadline, &ignored, &timed_out) != 0)
        return win_fail(error, GetLastError(), "ConnectNamedPipe");
    if (timed_out)
        return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "no connector opened %s in time", ep->name);
    return IPCB_OK;
}

static int32_t open_peer(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    for (;;) {
        DWORD e;
        ep->pipe = CreateFileA(ep->name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                               (ep->overlapped ? FILE_FLAG_OVERLAPPED : 0) | SECURITY_SQOS_PRESENT |
                                   SECURITY_IDENTIFICATION,
                               NULL);
        if (ep->pipe != INVALID_HANDLE_VALUE) break;
        ep->pipe = NULL;
        e = GetLastError();
        if (e != ERROR_PIPE_BUSY && e != ERROR_FILE_NOT_FOUND)
            return win_fail(error, e, "CreateFile %s", ep->name);
        if (win_left_ms(deadline) == 0)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "%s did not accept in time", ep->name);
        if (e == ERROR_PIPE_BUSY)
            WaitNamedPipeA(ep->name, win_left_ms(deadline) > 50 ? 50 : win_left_ms(deadline));
        else
            Sleep(1);
    }
    if (ep->message_mode) {
        DWORD mode = PIPE_READMODE_MESSAGE;
        if (!SetNamedPipeHandleState(ep->pipe, &mode, NULL, NULL))
            return win_fail(error, GetLastError(), "SetNamedPipeHandleState");
    }
    return IPCB_OK;
}

int32_t IPCB_CALL pipe_named_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = win_deadline(timeout_ns);
    int32_t status;
    if (ep == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL endpoint");
    status = ep->role == IPCB_ROLE_CREATOR ? accept_peer(ep, deadline, error)
                                           : open_peer(ep, deadline, error);
    if (status == IPCB_OK) ep->connected = 1;
    return status;
}

static int32_t closed_or_failed(DWORD e, const char *what, ipcb_error *error) {
    if (e == ERROR_BROKEN_PIPE || e == ERROR_NO_DATA || e == ERROR_PIPE_NOT_CONNECTED)
        return ipcb_fail(error, IPCB_E_CLOSED, (int)e, "the peer closed the pipe");
    return win_fail(error, e, "%s", what);
}

int32_t IPCB_CALL pipe_named_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                  int64_t timeout_ns, ipcb_error *error) {
    const char *p = (const char *)buf;
    size_t sent = 0;
    int64_t deadline = win_deadline(timeout_ns);
    if (ep == NULL || buf == NULL || len == 0 || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send on an unconnected endpoint or empty");
    if (ep->message_mode && len > 0xffffffffu)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0, "a message must be under 4 GiB");
    while (sent < len) {
        DWORD chunk = len - sent > 0x40000000u ? 0x40000000u : (DWORD)(len - sent);
        DWORD n = 0;
        if (ep->overlapped) {
            int timed_out = 0;
            if (overlapped_transfer(ep, 1, (void *)(p + sent), chunk, deadline, &n, &timed_out))
                return closed_or_failed(GetLastError(), "WriteFile", error);
            if (timed_out && sent + n == 0)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "no room in the pipe in time");
            if (timed_out)
                return ipcb_fail(error, IPCB_E_SYSTEM, 0,
                                 "timed out after %llu of %llu bytes: the stream is unusable",
                                 (unsigned long long)(sent + n), (unsigned long long)len);
        } else if (!WriteFile(ep->pipe, p + sent, chunk, &n, NULL)) {
            return closed_or_failed(GetLastError(), "WriteFile", error);
        }
        sent += n;
    }
    return IPCB_OK;
}

/* Blocking I/O has no way to bound ReadFile: wait for data with PeekNamedPipe first. */
static int32_t wait_readable(ipcb_endpoint *ep, int64_t deadline, ipcb_error *error) {
    for (;;) {
        DWORD available = 0;
        if (!PeekNamedPipe(ep->pipe, NULL, 0, NULL, &available, NULL))
            return closed_or_failed(GetLastError(), "PeekNamedPipe", error);
        if (available > 0) return IPCB_OK;
        if (win_left_ms(deadline) == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
        Sleep(deadline < 0 ? 1 : (win_left_ms(deadline) < 1 ? 0 : 1));
    }
}

int32_t IPCB_CALL pipe_named_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                  int64_t timeout_ns, ipcb_error *error) {
    DWORD want = cap > 0x40000000u ? 0x40000000u : (DWORD)cap;
    DWORD n = 0;
    int64_t deadline = win_deadline(timeout_ns);
    if (len) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv on an unconnected endpoint or no buffer");
    if (ep->overlapped) {
        int timed_out = 0;
        if (overlapped_transfer(ep, 0, buf, want, deadline, &n, &timed_out))
            return closed_or_failed(GetLastError(), "ReadFile", error);
        if (n == 0 && timed_out) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
    } else {
        int32_t status = wait_readable(ep, deadline, error);
        if (status != IPCB_OK) return status;
        if (!ReadFile(ep->pipe, buf, want, &n, NULL) && GetLastError() != ERROR_MORE_DATA)
            return closed_or_failed(GetLastError(), "ReadFile", error);
    }
    if (n == 0) return ipcb_fail(error, IPCB_E_CLOSED, 0, "the peer closed the pipe");
    *len = n;
    return IPCB_OK;
}

/* CloseHandle without DisconnectNamedPipe: what the peer has not read yet stays readable, then
 * its reads end with ERROR_BROKEN_PIPE. The name goes with the last handle. */
void IPCB_CALL pipe_named_close(ipcb_endpoint *ep) {
    int settled;
    if (ep == NULL) return;
    settled = win_iocp_cancel(&ep->iocp);
    if (ep->pipe) CloseHandle(ep->pipe);
    if (ep->event) CloseHandle(ep->event);
    if (!settled) { /* a cancelled transfer's packet still points into ep: it must stay valid */
        ep->pipe = NULL;
        ep->event = NULL;
        return;
    }
    free(ep);
}

/* ABI 1.2 completion: overlapped WriteFile and ReadFile on the pipe, through the shared I/O
 * completion port code (plugins/windows_common/win_iocp.c). io=overlapped only. */
static int named_start(win_iocp_op *op) {
    const DWORD len = (DWORD)(op->len - op->done);
    BOOL done;
    memset(&op->ov, 0, sizeof op->ov);
    done = op->which == 0 ? WriteFile(op->binding->handle, op->base + op->done, len, NULL, &op->ov)
                          : ReadFile(op->binding->handle, op->base + op->done, len, NULL, &op->ov);
    if (done) return 0; /* done at once: the port still gets the packet */
    return GetLastError() == ERROR_IO_PENDING || GetLastError() == ERROR_MORE_DATA
               ? 0
               : (int)GetLastError();
}

static int named_finish(win_iocp_op *op) {
    DWORD got = 0;
    if (GetOverlappedResult(op->binding->handle, &op->ov, &got, FALSE)) return 0;
    /* A read that filled the buffer with part of a longer message went. */
    return GetLastError() == ERROR_MORE_DATA ? 0 : (int)GetLastError();
}

static int named_peer_gone(int code) {
    return code == ERROR_BROKEN_PIPE || code == ERROR_NO_DATA || code == ERROR_PIPE_NOT_CONNECTED;
}

static int32_t named_submit(ipcb_completion_queue *q, ipcb_endpoint *ep, int which, void *buf,
                            size_t len, uint64_t user_data, ipcb_error *error) {
    if (ep == NULL || !ep->connected)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "submit needs a connected endpoint");
    if (!ep->overlapped)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "pipe.named with io=blocking has no overlapped handle to bind to a "
                         "completion port; use io=overlapped (the default)");
    ep->iocp.handle = ep->pipe;
    ep->iocp.start = named_start;
    ep->iocp.finish = named_finish;
    ep->iocp.peer_gone = named_peer_gone;
    return win_iocp_submit(q, &ep->iocp, "pipe.named", which, buf, len, user_data, error);
}

int32_t IPCB_CALL pipe_named_submit_send(ipcb_completion_queue *q, ipcb_endpoint *ep,
                                         const void *buf, size_t len, uint64_t user_data,
                                         ipcb_error *error) {
    return named_submit(q, ep, 0, (void *)buf, len, user_data, error);
}

int32_t IPCB_CALL pipe_named_submit_recv(ipcb_completion_queue *q, ipcb_endpoint *ep, void *buf,
                                         size_t cap, uint64_t user_data, ipcb_error *error) {
    return named_submit(q, ep, 1, buf, cap, user_data, error);
}

void IPCB_CALL pipe_named_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context) {
    char text[32];
    DWORD flags = 0, out_size = 0, in_size = 0;
    if (ep == NULL || sink == NULL) return;
    sink(context, "mode", ep->message_mode ? "message" : "byte");
    sink(context, "io", ep->overlapped ? "overlapped" : "blocking");
    if (GetNamedPipeInfo(ep->pipe, &flags, &out_size, &in_size, NULL)) {
        snprintf(text, sizeof text, "%lu", (unsigned long)out_size);
        sink(context, "out_buffer", text);
        snprintf(text, sizeof text, "%lu", (unsigned long)in_size);
        sink(context, "in_buffer", text);
    } else {
        snprintf(text, sizeof text, "%lu", (unsigned long)ep->buffer_size);
        sink(context, "buffer_size", text);
    }
}
