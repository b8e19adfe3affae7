/* shm.ring: a single-producer single-consumer ring of variable-size messages in shared memory
 * (memfd_create: nothing is named, so nothing can be left behind). The connector maps the same
 * memfd through /proc/<creator-pid>/fd/<n>, as pipe.anon reaches its pipe. Waiting is the
 * user's choice: spin (lowest latency, burns a core), futex (sleeps), hybrid (spins spin_us, then
 * sleeps). The CPU a spinning side burns shows in the host's CPU figures. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"
#include "posix_io.h"
#include "shm_ring.h"

#define WAIT_SPIN 0
#define WAIT_FUTEX 1
#define WAIT_HYBRID 2

struct ipcb_endpoint {
    uint32_t role;
    uint32_t direction;
    int fd;
    size_t map_size;
    struct shm_ring_header *ring;
    unsigned char *data;
    uint64_t capacity;
    int wait;
    int64_t spin_ns;
    char address[64];
    /* Cached copies of the other side's index: read the shared line only when they run out. */
    uint64_t cached_tail;
    uint64_t cached_head;
    uint64_t pending_need; /* send: bytes the record being sent needs, wrap skip included */
};

static const char *wait_name(int w) { return w == WAIT_SPIN ? "spin" : w == WAIT_FUTEX ? "futex" : "hybrid"; }

static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t align8(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

/* Waits until ready() is true: spinning, sleeping on the futex word, or both, as configured.
 * `waiting` flags the sleeper so the other side knows to wake it. */
static int32_t wait_for(ipcb_endpoint *ep, int (*ready)(ipcb_endpoint *), _Atomic uint32_t *seq,
                        _Atomic uint32_t *waiting, int64_t deadline, ipcb_error *error) {
    int64_t spin_until = ep->wait == WAIT_SPIN ? INT64_MAX
                         : ep->wait == WAIT_HYBRID ? posix_now_ns() + ep->spin_ns
                                                   : 0;
    unsigned n = 0;
    for (;;) {
        if (ready(ep)) return IPCB_OK;
        if (atomic_load_explicit(&ep->ring->closed[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                 memory_order_acquire))
            return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the peer closed the ring");
        if ((++n & 63) == 0) {
            int64_t now = posix_now_ns();
            if (deadline >= 0 && now >= deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: timed out");
            if (now >= spin_until && ep->wait != WAIT_SPIN) break;
        }
        cpu_relax();
    }
    for (;;) {
        struct timespec ts, *tsp = NULL;
        uint32_t s = atomic_load_explicit(seq, memory_order_acquire);
        atomic_store_explicit(waiting, 1, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        if (ready(ep) ||
            atomic_load_explicit(&ep->ring->closed[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                 memory_order_acquire)) {
            atomic_store_explicit(waiting, 0, memory_order_relaxed);
            if (ready(ep)) return IPCB_OK;
            return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the peer closed the ring");
        }
        if (deadline >= 0) {
            int64_t left = posix_left(deadline);
            if (left <= 0) {
                atomic_store_explicit(waiting, 0, memory_order_relaxed);
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: timed out");
            }
            ts.tv_sec = (time_t)(left / 1000000000);
            ts.tv_nsec = (long)(left % 1000000000);
            tsp = &ts;
        }
        futex(seq, FUTEX_WAIT, s, tsp);
        atomic_store_explicit(waiting, 0, memory_order_relaxed);
    }
}

static void wake(_Atomic uint32_t *seq, _Atomic uint32_t *waiting) {
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(waiting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(seq, 1, memory_order_release);
        futex(seq, FUTEX_WAKE, 1, NULL);
    }
}

static void IPCB_CALL ring_close(ipcb_endpoint *ep) {
    if (ep == NULL) return;
    if (ep->ring != NULL) {
        int me = ep->role == IPCB_ROLE_CREATOR ? 0 : 1;
        atomic_store_explicit(&ep->ring->closed[me], 1, memory_order_release);
        /* Wake whoever sleeps on the ring so it sees the close. */
        atomic_fetch_add_explicit(&ep->ring->data_seq, 1, memory_order_release);
        atomic_fetch_add_explicit(&ep->ring->space_seq, 1, memory_order_release);
        atomic_fetch_add_explicit(&ep->ring->attached[me], 0, memory_order_release);
        futex(&ep->ring->data_seq, FUTEX_WAKE, INT_MAX, NULL);
        futex(&ep->ring->space_seq, FUTEX_WAKE, INT_MAX, NULL);
        futex(&ep->ring->attached[1 - me], FUTEX_WAKE, INT_MAX, NULL);
        munmap(ep->ring, ep->map_size);
    }
    if (ep->fd >= 0) close(ep->fd);
    free(ep);
}

static const ipcb_option_desc ring_options[] = {
    {"ring_size", "4M",
     "bytes of ring (a power of two, suffixes K, M; at least twice the largest message): "
     "larger rings absorb bursts and keep both sides busy"},
    {"wait", "hybrid",
     "spin (busy-wait: lowest latency, one core per waiting side), futex (sleep in the kernel), "
     "or hybrid (spin spin_us, then sleep)"},
    {"spin_us", "50", "hybrid: microseconds to spin before sleeping"},
};

static int32_t parse(const ipcb_open_params *p, ipcb_endpoint *ep, uint64_t *ring_size,
                     ipcb_error *error) {
    const char *v;
    int32_t s = posix_check_option_keys(p, ring_options, 3, "shm.ring", error);
    if (s != IPCB_OK) return s;
    *ring_size = 4u << 20;
    if ((v = posix_option(p, "ring_size")) != NULL && v[0] &&
        (posix_parse_bytes(v, (uint64_t)1 << 31, ring_size) != 0 || *ring_size < 4096 ||
         (*ring_size & (*ring_size - 1)) != 0))
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option ring_size=%s: expected a power of two from 4K to 2G, e.g. 4M", v);
    ep->wait = WAIT_HYBRID;
    if ((v = posix_option(p, "wait")) != NULL && v[0]) {
        if (!strcmp(v, "spin")) ep->wait = WAIT_SPIN;
        else if (!strcmp(v, "futex")) ep->wait = WAIT_FUTEX;
        else if (!strcmp(v, "hybrid")) ep->wait = WAIT_HYBRID;
        else
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option wait=%s: expected spin, futex or hybrid", v);
    }
    ep->spin_ns = 50000;
    if ((v = posix_option(p, "spin_us")) != NULL && v[0]) {
        uint64_t us = 0;
        if (posix_parse_bytes(v, 1000000, &us) != 0)
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option spin_us=%s: expected microseconds from 1 to 1000000", v);
        ep->spin_ns = (int64_t)us * 1000;
    }
    return IPCB_OK;
}

/* Maps the ring; NULL (with *status and the error filled) when it cannot. */
static struct shm_ring_header *map_ring(ipcb_endpoint *ep, int32_t *status, ipcb_error *error) {
    void *m = mmap(NULL, ep->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, ep->fd, 0);
    if (m == MAP_FAILED || m == NULL) {
        *status = ipcb_fail_errno(error, errno, "shm.ring: mmap %zu B", ep->map_size);
        return NULL;
    }
    ep->data = (unsigned char *)m + SHM_RING_DATA_OFFSET;
    return (struct shm_ring_header *)m;
}

static int32_t IPCB_CALL ring_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                   ipcb_error *error) {
    ipcb_endpoint *ep;
    uint64_t ring_size = 0;
    int32_t s;
    if (p == NULL || out == NULL) return ipcb_fail(error, IPCB_E_INVALID, 0, "NULL argument");
    *out = NULL;
    if (p->direction != IPCB_DIR_SEND && p->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_UNSUPPORTED, 0,
                         "shm.ring is one-way: open it with IPCB_DIR_SEND or IPCB_DIR_RECV");
    ep = (ipcb_endpoint *)calloc(1, sizeof *ep);
    if (ep == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->role = p->role;
    ep->direction = p->direction;
    ep->fd = -1;
    if ((s = parse(p, ep, &ring_size, error)) != IPCB_OK) goto fail;

    if (p->role == IPCB_ROLE_CREATOR) {
        if (p->max_message_size + 16 > ring_size / 2) {
            s = ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                          "shm.ring: a message of %llu B needs a ring of at least twice that; "
                          "use --opt ring_size=%llu or more",
                          (unsigned long long)p->max_message_size,
                          (unsigned long long)ring_size * 2);
            goto fail;
        }
        ep->fd = memfd_create("ipcbench-shm-ring", MFD_CLOEXEC);
        if (ep->fd < 0) {
            s = ipcb_fail_errno(error, errno, "memfd_create");
            goto fail;
        }
        ep->map_size = SHM_RING_DATA_OFFSET + ring_size;
        if (ftruncate(ep->fd, (off_t)ep->map_size) != 0) {
            s = ipcb_fail_errno(error, errno, "shm.ring: ftruncate to %zu B", ep->map_size);
            goto fail;
        }
        if ((ep->ring = map_ring(ep, &s, error)) == NULL) goto fail;
        memset(ep->ring, 0, sizeof *ep->ring);
        ep->ring->capacity = ring_size;
        atomic_thread_fence(memory_order_release);
        ep->ring->magic = SHM_RING_MAGIC;
        snprintf(ep->address, sizeof ep->address, "/proc/%ld/fd/%d", (long)getpid(), ep->fd);
    } else {
        struct stat st;
        long pid = 0;
        int n = -1;
        char tail = 0;
        if (p->address == NULL || sscanf(p->address, "/proc/%ld/fd/%d%c", &pid, &n, &tail) != 2) {
            s = ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                          "shm.ring address '%s' is not of the form /proc/<pid>/fd/<n>",
                          p->address ? p->address : "(null)");
            goto fail;
        }
        ep->fd = open(p->address, O_RDWR | O_CLOEXEC);
        if (ep->fd < 0 || fstat(ep->fd, &st) != 0 || st.st_size < (off_t)(SHM_RING_DATA_OFFSET + 4096)) {
            s = ipcb_fail(error, IPCB_E_BAD_ADDRESS, errno,
                          "shm.ring address '%s' is not the ring of a live process", p->address);
            goto fail;
        }
        ep->map_size = (size_t)st.st_size;
        if ((ep->ring = map_ring(ep, &s, error)) == NULL) goto fail;
        if (ep->ring->magic != SHM_RING_MAGIC ||
            ep->ring->capacity + SHM_RING_DATA_OFFSET != ep->map_size) {
            s = ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0, "shm.ring address '%s' is not a ring",
                          p->address);
            goto fail;
        }
        ring_size = ep->ring->capacity;
        if (p->max_message_size + 16 > ring_size / 2) {
            s = ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                          "shm.ring: a message of %llu B needs a ring of at least twice that",
                          (unsigned long long)p->max_message_size);
            goto fail;
        }
    }
    ep->capacity = ring_size;
    *out = ep;
    return IPCB_OK;
fail:
    ring_close(ep);
    return s;
}

static int32_t IPCB_CALL ring_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                             ipcb_error *error) {
    if (ep == NULL || ep->role != IPCB_ROLE_CREATOR || strlen(ep->address) + 1 > cap)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "export_address needs a creator endpoint");
    strcpy(buf, ep->address);
    return IPCB_OK;
}

static int other_attached(ipcb_endpoint *ep) {
    int other = ep->role == IPCB_ROLE_CREATOR ? 1 : 0;
    return atomic_load_explicit(&ep->ring->attached[other], memory_order_acquire) != 0;
}

static int32_t IPCB_CALL ring_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error) {
    int me = ep->role == IPCB_ROLE_CREATOR ? 0 : 1;
    int64_t deadline = posix_deadline(timeout_ns);
    atomic_store_explicit(&ep->ring->attached[me], 1, memory_order_release);
    futex(&ep->ring->attached[me], FUTEX_WAKE, INT_MAX, NULL);
    while (!other_attached(ep)) {
        struct timespec ts = {0, 1000000};
        if (deadline >= 0 && posix_now_ns() >= deadline)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: the peer did not attach");
        futex(&ep->ring->attached[1 - me], FUTEX_WAIT, 0, &ts);
    }
    return IPCB_OK;
}

/* Room for the record being sent (ep->pending_need bytes, a wrap skip included). */
static int has_room(ipcb_endpoint *ep) {
    uint64_t head = atomic_load_explicit(&ep->ring->head, memory_order_relaxed);
    if (ep->capacity - (head - ep->cached_tail) >= ep->pending_need) return 1;
    ep->cached_tail = atomic_load_explicit(&ep->ring->tail, memory_order_acquire);
    return ep->capacity - (head - ep->cached_tail) >= ep->pending_need;
}

static int has_data(ipcb_endpoint *ep) {
    uint64_t tail = atomic_load_explicit(&ep->ring->tail, memory_order_relaxed);
    if (ep->cached_head != tail) return 1;
    ep->cached_head = atomic_load_explicit(&ep->ring->head, memory_order_acquire);
    return ep->cached_head != tail;
}

static int32_t IPCB_CALL ring_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                   int64_t timeout_ns, ipcb_error *error) {
    struct shm_ring_header *r;
    uint64_t head, pos, need, skip;
    int32_t s;
    if (ep == NULL || buf == NULL || len == 0 || ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a sending endpoint and data");
    r = ep->ring;
    need = 8 + align8(len);
    if (need > ep->capacity / 2)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0, "shm.ring: message of %zu B exceeds half the ring", len);
    head = atomic_load_explicit(&r->head, memory_order_relaxed);
    pos = head & (ep->capacity - 1);
    skip = ep->capacity - pos < need ? ep->capacity - pos : 0;
    ep->pending_need = need + skip;
    if (!has_room(ep) && (s = wait_for(ep, has_room, &r->space_seq, &r->producer_waiting,
                                       posix_deadline(timeout_ns), error)) != IPCB_OK)
        return s;
    if (atomic_load_explicit(&r->closed[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                             memory_order_acquire))
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the receiver closed the ring");
    if (skip) {
        uint32_t wrap = SHM_WRAP;
        memcpy(ep->data + pos, &wrap, sizeof wrap);
        head += skip;
        pos = 0;
    }
    {
        uint32_t header[2];
        header[0] = (uint32_t)len;
        header[1] = 0;
        memcpy(ep->data + pos, header, sizeof header);
        memcpy(ep->data + pos + 8, buf, len);
    }
    atomic_store_explicit(&r->head, head + need, memory_order_release);
    wake(&r->data_seq, &r->consumer_waiting);
    return IPCB_OK;
}

static int32_t IPCB_CALL ring_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                   int64_t timeout_ns, ipcb_error *error) {
    struct shm_ring_header *r;
    int32_t s;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a receiving endpoint and buffer");
    r = ep->ring;
    for (;;) {
        uint64_t tail, pos;
        uint32_t header[2];
        if (!has_data(ep) && (s = wait_for(ep, has_data, &r->data_seq, &r->consumer_waiting,
                                           posix_deadline(timeout_ns), error)) != IPCB_OK)
            return s;
        tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        pos = tail & (ep->capacity - 1);
        memcpy(header, ep->data + pos, sizeof header);
        if (header[0] == SHM_WRAP) {
            atomic_store_explicit(&r->tail, tail + (ep->capacity - pos), memory_order_release);
            continue;
        }
        if (header[0] > cap) {
            atomic_store_explicit(&r->tail, tail + 8 + align8(header[0]), memory_order_release);
            wake(&r->space_seq, &r->producer_waiting);
            return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                             "shm.ring: message of %u B does not fit the %zu-byte buffer",
                             header[0], cap);
        }
        memcpy(buf, ep->data + pos + 8, header[0]);
        *len = header[0];
        atomic_store_explicit(&r->tail, tail + 8 + align8(header[0]), memory_order_release);
        wake(&r->space_seq, &r->producer_waiting);
        return IPCB_OK;
    }
}

static void IPCB_CALL ring_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *ctx) {
    char value[32];
    if (ep == NULL || sink == NULL) return;
    snprintf(value, sizeof value, "%llu", (unsigned long long)ep->capacity);
    sink(ctx, "ring_size", value);
    sink(ctx, "wait", wait_name(ep->wait));
    snprintf(value, sizeof value, "%lld", (long long)(ep->spin_ns / 1000));
    sink(ctx, "spin_us", value);
}

static const ipcb_transport ring_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = 3,
    .id = "shm.ring",
    .description = "single-producer single-consumer ring in shared memory (memfd), one way; "
                   "wait by spin, futex or hybrid",
    .caps = IPCB_CAP_MESSAGE | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0, /* half the ring: checked at open, ring_size raises it */
    .options = ring_options,
    .open = ring_open,
    .export_address = ring_export_address,
    .connect = ring_connect,
    .send = ring_send,
    .recv = ring_recv,
    .close = ring_close,
    .query_settings = ring_query_settings,
    .remove_address = NULL, /* a memfd has no name: it goes with its last process */
    .get_extension = NULL,
};

static const ipcb_transport *const shm_transports[] = {&ring_transport};

static const ipcb_plugin shm_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "shm",
    .version = "0.1.0",
    .description = "shared memory transports",
    .transport_count = 1,
    .reserved0 = 0,
    .transports = shm_transports,
    .shutdown = NULL,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &shm_plugin;
}
