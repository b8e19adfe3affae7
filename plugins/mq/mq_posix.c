/* mq.posix: a POSIX message queue (mq_open, unique name, 0600), one direction. The creator
 * unlinks it on close; the host calls remove_address if the creator died. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "mq_transports.h"
#include "posix_io.h"

struct ipcb_endpoint {
    uint32_t role;
    uint32_t direction;
    mqd_t q;
    char name[64];
    long msgsize;  /* the queue's mq_msgsize: mq_receive needs a buffer at least this big */
    char *scratch; /* for receive buffers smaller than msgsize */
};

static unsigned posix_counter;

static long msg_max(void) {
    return posix_read_proc_long("/proc/sys/fs/mqueue/msg_max");
}
static long msgsize_max(void) {
    return posix_read_proc_long("/proc/sys/fs/mqueue/msgsize_max");
}

static void IPCB_CALL pq_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->q != (mqd_t)-1) mq_close(ep->q);
    if (ep->role == IPCB_ROLE_CREATOR && ep->name[0]) mq_unlink(ep->name);
    free(ep->scratch);
    free(ep);
}

static int32_t open_failure(ipcb_endpoint *ep, int e, uint64_t size, long maxmsg,
                            ipcb_error *error) {
    pq_close(ep);
    if (e == EINVAL)
        return ipcb_fail(error, IPCB_E_TOO_BIG, e,
                         "mq.posix: a queue of %ld messages of %llu B exceeds "
                         "fs.mqueue.msgsize_max=%ld or fs.mqueue.msg_max=%ld; raise them with "
                         "sysctl -w fs.mqueue.msgsize_max=%llu (root may exceed them)",
                         maxmsg, (unsigned long long)size, msgsize_max(), msg_max(),
                         (unsigned long long)size);
    if (e == EMFILE || e == ENOMEM)
        return ipcb_fail(error, IPCB_E_TOO_BIG, e,
                         "mq.posix: %ld messages of %llu B exceed RLIMIT_MSGQUEUE (ulimit -q, "
                         "819200 B by default); raise it or use --opt maxmsg with fewer",
                         maxmsg, (unsigned long long)size);
    if (e == ENOSPC)
        return ipcb_fail(error, IPCB_E_SYSTEM, e,
                         "mq.posix: fs.mqueue.queues_max queues exist already; remove stale ones "
                         "under /dev/mqueue");
    return ipcb_fail_errno(error, e, "mq_open");
}

static int32_t IPCB_CALL pq_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                 ipcb_error *error) {
    ipcb_endpoint *ep;
    int32_t status;
    const char *v;
    uint64_t maxmsg = 10;
    int access;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if ((status = plugin_check_option_keys(p, mq_posix_options, MQ_POSIX_OPTION_COUNT, "mq.posix",
                                           error)) != IPCB_OK)
        return status;
    if (p->direction != IPCB_DIR_SEND && p->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "mq.posix endpoints are one-way: open with IPCB_DIR_SEND or RECV");
    if ((v = plugin_option(p, "maxmsg")) != NULL && v[0] &&
        plugin_parse_bytes(v, 65536, &maxmsg) != 0)
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option maxmsg=%s: expected a message count from 1 to 65536", v);
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->role = p->role;
    ep->direction = p->direction;
    ep->q = (mqd_t)-1;
    access = (p->direction == IPCB_DIR_SEND ? O_WRONLY : O_RDONLY) | O_CLOEXEC;

    if (p->role == IPCB_ROLE_CREATOR) {
        struct mq_attr attr;
        unsigned n = __atomic_fetch_add(&posix_counter, 1u, __ATOMIC_RELAXED);
        memset(&attr, 0, sizeof attr);
        attr.mq_maxmsg = (long)maxmsg;
        attr.mq_msgsize = p->max_message_size ? (long)p->max_message_size : 8192;
        snprintf(ep->name, sizeof ep->name, "/ipcbench-%ld-%u-%lx", (long)getpid(), n,
                 (unsigned long)(posix_now_ns() & 0xffffff));
        ep->q = mq_open(ep->name, access | O_CREAT | O_EXCL, 0600, &attr);
        if (ep->q == (mqd_t)-1) {
            int e = errno;
            ep->name[0] = '\0';
            return open_failure(ep, e, (uint64_t)attr.mq_msgsize, attr.mq_maxmsg, error);
        }
    } else {
        if (p->address == NULL || p->address[0] != '/' || strlen(p->address) >= sizeof ep->name) {
            pq_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                             "mq.posix address '%s' is not a queue name (/name)",
                             p->address ? p->address : "(null)");
        }
        strcpy(ep->name, p->address);
        ep->q = mq_open(ep->name, access);
        if (ep->q == (mqd_t)-1) {
            int e = errno;
            pq_close(ep);
            return ipcb_fail(error, IPCB_E_BAD_ADDRESS, e, "mq.posix: cannot open queue '%s': %s",
                             p->address, strerror(e));
        }
    }
    {
        struct mq_attr attr;
        mq_getattr(ep->q, &attr);
        ep->msgsize = attr.mq_msgsize;
        if (p->max_message_size > (uint64_t)attr.mq_msgsize) {
            long have = attr.mq_msgsize;
            pq_close(ep);
            return ipcb_fail(error, IPCB_E_TOO_BIG, EMSGSIZE,
                             "mq.posix: the queue takes messages up to %ld B, not %llu", have,
                             (unsigned long long)p->max_message_size);
        }
    }
    *out = ep;
    return IPCB_OK;
}

static int32_t IPCB_CALL pq_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                           ipcb_error *error) {
    if (ep == NULL || buf == NULL || ep->role != IPCB_ROLE_CREATOR)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    if (strlen(ep->name) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "address buffer too small");
    strcpy(buf, ep->name);
    return IPCB_OK;
}

static int32_t IPCB_CALL pq_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    (void)timeout_ns; /* both sides hold the queue since open */
    if (ep == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL endpoint");
    return IPCB_OK;
}

/* mq_timed* take an absolute CLOCK_REALTIME deadline. */
static struct timespec realtime_deadline(int64_t timeout_ns) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec += (long)(timeout_ns % 1000000000);
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec += 1;
        ts.tv_nsec -= 1000000000;
    }
    return ts;
}

static int32_t IPCB_CALL pq_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                                 ipcb_error *error) {
    struct timespec deadline;
    if (ep == NULL || buf == NULL || len == 0 || ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a sending endpoint and data");
    if (timeout_ns >= 0) deadline = realtime_deadline(timeout_ns);
    for (;;) {
        int rc = timeout_ns < 0 ? mq_send(ep->q, (const char *)buf, len, 0)
                                : mq_timedsend(ep->q, (const char *)buf, len, 0, &deadline);
        if (rc == 0) return IPCB_OK;
        if (errno == EINTR) continue;
        if (errno == ETIMEDOUT) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "mq.posix: queue full");
        if (errno == EMSGSIZE)
            return ipcb_fail(error, IPCB_E_TOO_BIG, errno,
                             "mq.posix: message of %zu B exceeds the queue's %ld B", len,
                             ep->msgsize);
        return ipcb_fail_errno(error, errno, "mq_send");
    }
}

static int32_t IPCB_CALL pq_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                 int64_t timeout_ns, ipcb_error *error) {
    struct timespec deadline;
    char *target = (char *)buf;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a receiving endpoint and buffer");
    if (cap < (size_t)ep->msgsize) { /* mq_receive refuses buffers below mq_msgsize */
        if (ep->scratch == NULL && (ep->scratch = (char *)malloc((size_t)ep->msgsize)) == NULL)
            return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
        target = ep->scratch;
    }
    if (timeout_ns >= 0) deadline = realtime_deadline(timeout_ns);
    for (;;) {
        ssize_t n = timeout_ns < 0
                        ? mq_receive(ep->q, target, (size_t)ep->msgsize, NULL)
                        : mq_timedreceive(ep->q, target, (size_t)ep->msgsize, NULL, &deadline);
        if (n >= 0) {
            if ((size_t)n > cap)
                return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                                 "mq.posix: message of %zd B does not fit the %zu-byte buffer", n,
                                 cap);
            if (target != buf) memcpy(buf, target, (size_t)n);
            *len = (size_t)n;
            return IPCB_OK;
        }
        if (errno == EINTR) continue;
        if (errno == ETIMEDOUT)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "mq.posix: no message in time");
        return ipcb_fail_errno(error, errno, "mq_receive");
    }
}

static void IPCB_CALL pq_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context) {
    char value[32];
    struct mq_attr attr;
    if (ep == NULL || sink == NULL) return;
    if (mq_getattr(ep->q, &attr) == 0) {
        snprintf(value, sizeof value, "%ld", attr.mq_maxmsg);
        sink(context, "maxmsg", value);
        snprintf(value, sizeof value, "%ld", attr.mq_msgsize);
        sink(context, "msgsize", value);
    }
    snprintf(value, sizeof value, "%ld", msg_max());
    sink(context, "fs.mqueue.msg_max", value);
    snprintf(value, sizeof value, "%ld", msgsize_max());
    sink(context, "fs.mqueue.msgsize_max", value);
}

static int32_t IPCB_CALL pq_remove_address(const char *address, ipcb_error *error) {
    if (address == NULL || address[0] != '/') return IPCB_OK;
    if (mq_unlink(address) != 0 && errno != ENOENT)
        return ipcb_fail_errno(error, errno, "mq_unlink %s", address);
    return IPCB_OK;
}

const ipcb_option_desc mq_posix_options[MQ_POSIX_OPTION_COUNT] = {
    {"maxmsg", "10",
     "mq_maxmsg: messages the queue holds (fs.mqueue.msg_max caps it for non-root users; "
     "RLIMIT_MSGQUEUE caps maxmsg x size)"},
};

char mq_posix_description[200] = "POSIX message queue (mq_open, unique name, 0600)";

ipcb_transport mq_posix_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = MQ_POSIX_OPTION_COUNT,
    .id = "mq.posix",
    .description = mq_posix_description,
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED,
    .max_message_size = 0, /* set per queue at open; kernel limits are checked there */
    .options = mq_posix_options,
    .open = pq_open,
    .export_address = pq_export_address,
    .connect = pq_connect,
    .send = pq_send,
    .recv = pq_recv,
    .close = pq_close,
    .query_settings = pq_query_settings,
    .remove_address = pq_remove_address,
    .get_extension = 0,
};

void mq_posix_describe_limits(void) {
    snprintf(mq_posix_description, sizeof mq_posix_description,
             "POSIX message queue (mq_open, unique name, 0600); fs.mqueue.msgsize_max=%ld and "
             "msg_max=%ld apply to non-root users",
             msgsize_max(), msg_max());
}
