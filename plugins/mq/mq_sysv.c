/* mq.sysv: a System V message queue (msgget with IPC_PRIVATE, mode 0600), one direction. The
 * creator removes it with IPC_RMID on close; the host calls remove_address if the creator died. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>

#include "ipcbench/error_format.h"
#include "mq_transports.h"
#include "posix_io.h"

struct sysv_message {
    long mtype;
    char mtext[1];
};

struct ipcb_endpoint {
    uint32_t role;
    uint32_t direction;
    int qid;
    size_t max;
    struct sysv_message *scratch; /* mtype + max bytes: msgsnd/msgrcv need the mtype in front */
};

static long msgmax(void) {
    return posix_read_proc_long("/proc/sys/kernel/msgmax");
}
static long msgmnb(void) {
    return posix_read_proc_long("/proc/sys/kernel/msgmnb");
}

static void IPCB_CALL sysv_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->role == IPCB_ROLE_CREATOR && ep->qid >= 0) msgctl(ep->qid, IPC_RMID, NULL);
    free(ep->scratch);
    free(ep);
}

/* The connector attaches to the creator's live queue, named sysv:<msqid>. */
static int32_t attach_queue(const ipcb_open_params *p, ipcb_endpoint *ep, ipcb_error *error) {
    struct msqid_ds ds;
    if (p->address == NULL || sscanf(p->address, "sysv:%d", &ep->qid) != 1 ||
        msgctl(ep->qid, IPC_STAT, &ds) != 0) {
        const int e = errno;
        ep->qid = -1;
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, e,
                         "mq.sysv address '%s' is not a live queue (expected sysv:<msqid>)",
                         p->address ? p->address : "(null)");
    }
    return IPCB_OK;
}

/* The creator's private queue (IPC_PRIVATE, 0600), sized by queue_bytes, and room in it for
 * the largest message. */
static int32_t create_queue(const ipcb_open_params *p, ipcb_endpoint *ep, uint64_t queue_bytes,
                            ipcb_error *error) {
    struct msqid_ds ds;
    ep->qid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    if (ep->qid < 0) {
        const int e = errno;
        if (e == ENOSPC)
            return ipcb_fail(error, IPCB_E_SYSTEM, e,
                             "msgget: the system has kernel.msgmni queues already; remove stale "
                             "ones (ipcs -q, ipcrm) or raise kernel.msgmni");
        return ipcb_fail_errno(error, e, "msgget");
    }
    if (queue_bytes) {
        msgctl(ep->qid, IPC_STAT, &ds);
        ds.msg_qbytes = (msglen_t)queue_bytes;
        if (msgctl(ep->qid, IPC_SET, &ds) != 0) {
            const int e = errno;
            return ipcb_fail(error, IPCB_E_BAD_OPTION, e,
                             "option queue_bytes=%llu: above kernel.msgmnb=%ld needs root "
                             "(CAP_SYS_RESOURCE) or sysctl -w kernel.msgmnb=%llu",
                             (unsigned long long)queue_bytes, msgmnb(),
                             (unsigned long long)queue_bytes);
        }
    }
    if (msgctl(ep->qid, IPC_STAT, &ds) == 0 && p->max_message_size > ds.msg_qbytes)
        return ipcb_fail(error, IPCB_E_TOO_BIG, EINVAL,
                         "mq.sysv: a message of %llu B exceeds the queue's capacity of %lu B "
                         "(kernel.msgmnb); use --opt queue_bytes=%llu or raise kernel.msgmnb",
                         (unsigned long long)p->max_message_size, (unsigned long)ds.msg_qbytes,
                         (unsigned long long)p->max_message_size * 2);
    return IPCB_OK;
}

static int32_t IPCB_CALL sysv_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                   ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    uint64_t queue_bytes = 0;
    const char *v;
    const long limit_msg = msgmax();
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if ((status = plugin_check_option_keys(p, mq_sysv_options, MQ_SYSV_OPTION_COUNT, "mq.sysv",
                                           error)) != IPCB_OK)
        return status;
    if (p->direction != IPCB_DIR_SEND && p->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "mq.sysv endpoints are one-way: open with IPCB_DIR_SEND or RECV");
    if ((v = plugin_option(p, "queue_bytes")) != NULL && v[0] &&
        plugin_parse_bytes(v, (uint64_t)1 << 31, &queue_bytes) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option queue_bytes=%s: expected a byte count such as 64K", v);
    if (limit_msg > 0 && p->max_message_size > (uint64_t)limit_msg)
        return ipcb_fail(error, IPCB_E_TOO_BIG, EINVAL,
                         "mq.sysv: a message of %llu B exceeds kernel.msgmax=%ld; raise it with "
                         "sysctl -w kernel.msgmax=%llu",
                         (unsigned long long)p->max_message_size, limit_msg,
                         (unsigned long long)p->max_message_size);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->role = p->role;
    ep->direction = p->direction;
    ep->qid = -1;
    ep->max = (size_t)p->max_message_size;
    if (ep->max == 0) ep->max = limit_msg > 0 ? (size_t)limit_msg : 8192;
    ep->scratch = (struct sysv_message *)malloc(sizeof(long) + ep->max);
    if (ep->scratch == NULL) {
        sysv_close(ep);
        return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    }
    status = p->role == IPCB_ROLE_CONNECTOR ? attach_queue(p, ep, error)
                                            : create_queue(p, ep, queue_bytes, error);
    if (status != IPCB_OK) {
        sysv_close(ep); /* the creator's queue goes with it */
        return status;
    }
    ep->scratch->mtype = 1;
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL sysv_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                             ipcb_error *error) {
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    if ((size_t)snprintf(buf, cap, "sysv:%d", ep->qid) >= cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer too small");
    return IPCB_OK;
}

static int32_t IPCB_CALL sysv_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    struct msqid_ds ds;
    (void)timeout_ns; /* the queue exists since open: nothing to wait for */
    if (ep == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL endpoint");
    if (msgctl(ep->qid, IPC_STAT, &ds) != 0)
        return ipcb_fail(error, IPCB_E_CLOSED, errno, "mq.sysv: queue %d is gone", ep->qid);
    return IPCB_OK;
}

static int32_t gone(int e, ipcb_error *error) {
    if (e == EIDRM || e == EINVAL)
        return ipcb_fail(error, IPCB_E_CLOSED, e, "mq.sysv: the queue was removed by its creator");
    return ipcb_fail_errno(error, e, "mq.sysv");
}

static int32_t IPCB_CALL sysv_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                   int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    if (ep == NULL || buf == NULL || len == 0 || ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a sending endpoint and data");
    if (len > ep->max)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                         "mq.sysv: message of %zu B exceeds the %zu B this endpoint was opened "
                         "for",
                         len, ep->max);
    memcpy(ep->scratch->mtext, buf, len);
    for (;;) {
        if (msgsnd(ep->qid, ep->scratch, len, timeout_ns < 0 ? 0 : IPC_NOWAIT) == 0) return IPCB_OK;
        if (errno == EINTR) continue;
        if (errno == EAGAIN) {
            if (posix_now_ns() >= deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "mq.sysv: queue full");
            posix_pause_us(50);
            continue;
        }
        return gone(errno, error);
    }
}

static int32_t IPCB_CALL sysv_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                   int64_t timeout_ns, ipcb_error *error) {
    int64_t deadline = posix_deadline(timeout_ns);
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a receiving endpoint and buffer");
    for (;;) {
        ssize_t n = msgrcv(ep->qid, ep->scratch, ep->max, 0, timeout_ns < 0 ? 0 : IPC_NOWAIT);
        if (n >= 0) {
            if ((size_t)n > cap)
                return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                                 "mq.sysv: message of %zd B does not fit the %zu-byte buffer", n,
                                 cap);
            memcpy(buf, ep->scratch->mtext, (size_t)n);
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (errno == EINTR) continue;
        if (errno == E2BIG) { /* larger than this endpoint takes: consume it, report */
            msgrcv(ep->qid, ep->scratch, ep->max, 0, IPC_NOWAIT | MSG_NOERROR);
            return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                             "mq.sysv: a message larger than %zu B arrived", ep->max);
        }
        if (errno == ENOMSG) {
            if (posix_now_ns() >= deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "mq.sysv: no message in time");
            posix_pause_us(50);
            continue;
        }
        return gone(errno, error);
    }
}

static void IPCB_CALL sysv_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink,
                                          void *context) {
    char value[32];
    struct msqid_ds ds;
    if (ep == NULL || sink == NULL) return;
    snprintf(value, sizeof value, "%ld", msgmax());
    sink(context, "kernel.msgmax", value);
    snprintf(value, sizeof value, "%ld", msgmnb());
    sink(context, "kernel.msgmnb", value);
    if (msgctl(ep->qid, IPC_STAT, &ds) == 0) {
        snprintf(value, sizeof value, "%lu", (unsigned long)ds.msg_qbytes);
        sink(context, "queue_bytes", value);
    }
}

static int32_t IPCB_CALL sysv_remove_address(const char *address, ipcb_error *error) {
    int qid;
    if (address == NULL || sscanf(address, "sysv:%d", &qid) != 1) return IPCB_OK;
    if (msgctl(qid, IPC_RMID, NULL) != 0 && errno != EINVAL && errno != EIDRM)
        return ipcb_fail_errno(error, errno, "msgctl(IPC_RMID) on %s", address);
    return IPCB_OK;
}

const ipcb_option_desc mq_sysv_options[MQ_SYSV_OPTION_COUNT] = {
    {"queue_bytes", "",
     "msg_qbytes of the queue (bytes it may hold, suffixes K, M); empty keeps kernel.msgmnb; "
     "more needs root or a larger kernel.msgmnb"},
};

char mq_sysv_description[200] = "System V message queue (msgget, IPC_PRIVATE, 0600)";

ipcb_transport mq_sysv_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = MQ_SYSV_OPTION_COUNT,
    .id = "mq.sysv",
    .description = mq_sysv_description,
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED,
    .max_message_size = 0, /* kernel.msgmax applies; open() names it and how to raise it */
    .options = mq_sysv_options,
    .open = sysv_open,
    .export_address = sysv_export_address,
    .connect = sysv_connect,
    .send = sysv_send,
    .recv = sysv_recv,
    .close = sysv_close,
    .query_settings = sysv_query_settings,
    .remove_address = sysv_remove_address,
    .get_extension = 0,
};

void mq_sysv_describe_limits(void) {
    long max = msgmax(), queue = msgmnb();
    snprintf(mq_sysv_description, sizeof mq_sysv_description,
             "System V message queue (msgget, IPC_PRIVATE, 0600); kernel.msgmax=%ld caps a "
             "message, kernel.msgmnb=%ld a queue",
             max, queue);
}
