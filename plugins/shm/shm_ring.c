/* shm.ring: a single-producer single-consumer ring of variable-size messages in shared memory.
 * The memory and the sleeps come from shm_os.h: on Linux a memfd (nothing is named, so nothing
 * can be left behind) the connector maps through /proc/<creator-pid>/fd/<n>, and futexes; on
 * Windows a pagefile-backed file mapping with a random name and a current-user DACL, and events.
 * Waiting is the user's choice: spin (lowest latency, burns a core), futex (sleeps), hybrid
 * (the default: spins up to spin_us while the peer runs on another CPU, sleeps at once while it
 * shares this one). The CPU a spinning side burns shows in the host's CPU figures. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "posix_io.h" /* deadlines; builds on Windows too */
#include "shm_os.h"
#include "shm_ring.h"

/* For the few helpers on every message's path (GCC and Clang, mingw-w64 included). */
#if defined(__GNUC__)
#define RING_INLINE static inline __attribute__((always_inline))
#else
#define RING_INLINE static inline
#endif
#define WAIT_SPIN 0
#define WAIT_FUTEX 1
#define WAIT_HYBRID 2

struct ipcb_endpoint {
    uint32_t role;
    uint32_t direction;
    shm_os_region region; /* the mapping (shm_os.h): memfd and futexes, or a file mapping */
    size_t map_size;
    struct shm_ring_header *ring;
    unsigned char *data;
    uint64_t capacity;
    int wait;
    int64_t spin_ns;  /* spin_us: the most wait=hybrid spins in one wait */
    int32_t last_cpu; /* the CPU this side last published in the ring (-2: none yet) */
    uint32_t calls;   /* data calls, to publish the CPU every 64th (hybrid) */
    int can_lazy;     /* hybrid, and the peer's remote barrier reaches this process */
    int may_spin;     /* spin, or hybrid with the peer last seen on another CPU (data_soon) */
    int lazy;         /* publishing indices with plain stores now (ring->lazy[me]) */
    char address[64];
    /* Cached copies of the other side's index: read the shared line only when they run out. */
    uint64_t cached_tail;
    uint64_t cached_head;
    uint64_t pending_need; /* send: bytes the record being sent needs, wrap skip included */
    /* Zero-copy: the slots borrowed or messages taken and not yet published or released, and
     * the ring index just past each of them. */
    uint32_t outstanding;
    uint32_t ends_cap;
    uint64_t *ends;
};

static const char *wait_name(int w) {
    return w == WAIT_SPIN ? "spin" : w == WAIT_FUTEX ? "futex" : "hybrid";
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t align8(uint64_t n) {
    return (n + 7u) & ~(uint64_t)7u;
}

static int peer_closed(ipcb_endpoint *ep) {
    return atomic_load_explicit(&ep->ring->closed[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                memory_order_acquire) != 0;
}

/* A peer that crashed never sets its closed flag: check that its process still exists. */
static int peer_gone(ipcb_endpoint *ep) {
    int32_t pid = atomic_load_explicit(&ep->ring->pid[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                       memory_order_relaxed);
    return shm_os_process_gone(pid);
}

static int32_t peer_lost(ipcb_error *error) {
    return ipcb_fail(error, IPCB_E_CLOSED, 0,
                     "shm.ring: the peer process is gone without closing the ring (crashed?)");
}

/* Publishes the CPU this side runs on in the ring, for the peer's waits to read. The shared
 * line is written only when the CPU changed (a migration), so reading it stays cheap. */
static int32_t publish_cpu(ipcb_endpoint *ep) {
    const int32_t cpu = shm_os_current_cpu();
    if (cpu != ep->last_cpu) {
        ep->last_cpu = cpu;
        atomic_store_explicit(&ep->ring->cpu[ep->role == IPCB_ROLE_CREATOR ? 0 : 1], cpu,
                              memory_order_relaxed);
    }
    return cpu;
}

/* wait=hybrid: whether the peer last ran on this very CPU, where a spin cannot pay (the peer
 * cannot make progress before we yield). Otherwise a wait spins up to spin_us. No learning:
 * what a wait does depends only on where the two sides run now, never on how earlier waits
 * went, so the figure of a short run is the figure of a long one. */
static int shares_cpu(ipcb_endpoint *ep) {
    const int32_t cpu = publish_cpu(ep);
    const int other = ep->role == IPCB_ROLE_CREATOR ? 1 : 0;
    return cpu >= 0 && atomic_load_explicit(&ep->ring->cpu[other], memory_order_relaxed) == cpu;
}

/* Waits until ready() is true: spinning, sleeping on the futex word, or both, as configured.
 * `waiting` flags the sleeper so the other side knows to wake it. */
static int32_t wait_for(ipcb_endpoint *ep, int (*ready)(ipcb_endpoint *), _Atomic uint32_t *seq,
                        _Atomic uint32_t *waiting, int64_t deadline, ipcb_error *error) {
    /* -1: hybrid, spin_us from the first clock read (a wait that ends at once reads none). */
    int64_t spin_until = ep->wait == WAIT_SPIN                      ? INT64_MAX
                         : ep->wait == WAIT_FUTEX || shares_cpu(ep) ? 0
                                                                    : -1;
    unsigned n = 0;
    for (;;) {
        if (ready(ep)) return IPCB_OK;
        if (peer_closed(ep))
            return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the peer closed the ring");
        if ((++n & 0xfffff) == 0 && peer_gone(ep)) return peer_lost(error);
        if ((n & 63) == 0 || spin_until == 0) {
            int64_t now = posix_now_ns();
            if (deadline >= 0 && now >= deadline)
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: timed out");
            if (spin_until < 0)
                spin_until = now + ep->spin_ns;
            else if (now >= spin_until && ep->wait != WAIT_SPIN)
                break;
        }
        cpu_relax();
    }
    for (;;) {
        uint32_t s = atomic_load_explicit(seq, memory_order_acquire);
        atomic_store_explicit(waiting, 1, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        /* The other side stores its index without a fence: make its CPU fence now, so either
         * its index is visible below or its next look at `waiting` sees ours. */
        if (atomic_load_explicit(&ep->ring->lazy[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                 memory_order_acquire))
            shm_os_remote_barrier();
        if (ready(ep) ||
            atomic_load_explicit(&ep->ring->closed[ep->role == IPCB_ROLE_CREATOR ? 1 : 0],
                                 memory_order_acquire)) {
            atomic_store_explicit(waiting, 0, memory_order_relaxed);
            if (ready(ep)) return IPCB_OK;
            return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the peer closed the ring");
        }
        {
            /* Sleep in slices of at most 100 ms, to notice a peer that crashed. */
            int64_t left = deadline >= 0 ? posix_left(deadline) : 100000000;
            if (left <= 0) {
                atomic_store_explicit(waiting, 0, memory_order_relaxed);
                return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: timed out");
            }
            if (left > 100000000) left = 100000000;
            if (shm_os_wait(&ep->region, seq, s, left) && peer_gone(ep)) {
                atomic_store_explicit(waiting, 0, memory_order_relaxed);
                return peer_lost(error);
            }
        }
        atomic_store_explicit(waiting, 0, memory_order_relaxed);
    }
}

/* wait=hybrid, every 64th data call: on different CPUs the peer spins before it sleeps, and a
 * plain store per message keeps the copy path as fast as wait=spin (a fenced exchange per
 * message halved it at 32 B); the rare sleeper pays a remote barrier instead. On one CPU the
 * peer sleeps at once, so the exchange is cheaper than its barrier per wait. Turning lazy on
 * is announced, and fenced, before the first plain store. */
static void choose_publishing(ipcb_endpoint *ep) {
    const int me = ep->role == IPCB_ROLE_CREATOR ? 0 : 1;
    int want;
    ep->may_spin = !shares_cpu(ep);
    want = ep->can_lazy && ep->may_spin;
    if (want == ep->lazy) return;
    if (want) {
        /* A read-modify-write: a full barrier, before the first plain store. */
        atomic_exchange_explicit(&ep->ring->lazy[me], 1, memory_order_seq_cst);
    } else {
        atomic_store_explicit(&ep->ring->lazy[me], 0, memory_order_release);
    }
    ep->lazy = want;
}

static void wake_other(ipcb_endpoint *ep, _Atomic uint32_t *seq) {
    atomic_fetch_add_explicit(seq, 1, memory_order_release);
    shm_os_wake(&ep->region, seq);
}

/* Moves an index (head: data published; tail: space freed) to `value` and wakes the other side
 * if it sleeps on `seq`. The sleeper stores its `waiting` flag, fences and reads the index; the
 * index goes out here by a seq_cst exchange before `waiting` is read (seq_cst), so one of the
 * two sees the other (the exchange costs less than a store and a full fence on x86). With
 * wait=spin nobody ever sleeps: a plain release store. Every data call passes here: with
 * wait=hybrid, every 64th also publishes this side's CPU, so a side that never waits (a
 * pinger's sending ring) still tells the other where it runs. Inlined (a call on every message
 * is part of what kept the round trip over the plain ring's; abiloop, issue 44), the wake out
 * of line. */
RING_INLINE void advance(ipcb_endpoint *ep, _Atomic uint64_t *index, uint64_t value,
                         _Atomic uint32_t *seq, _Atomic uint32_t *waiting) {
    if (ep->wait == WAIT_SPIN) {
        atomic_store_explicit(index, value, memory_order_release);
        return;
    }
    if (ep->lazy)
        atomic_store_explicit(index, value, memory_order_release);
    else
        atomic_exchange_explicit(index, value, memory_order_seq_cst);
    if (ep->wait == WAIT_HYBRID && (++ep->calls & 63) == 0) choose_publishing(ep);
    if (atomic_load_explicit(waiting, ep->lazy ? memory_order_relaxed : memory_order_seq_cst))
        wake_other(ep, seq);
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
        shm_os_wake(&ep->region, &ep->ring->data_seq);
        shm_os_wake(&ep->region, &ep->ring->space_seq);
        shm_os_wake(&ep->region, &ep->ring->attached[1 - me]);
    }
    shm_os_release(&ep->region);
    free(ep->ends);
    free(ep);
}

static const ipcb_option_desc ring_options[] = {
    {"ring_size", "4M",
     "bytes of ring (a power of two, suffixes K, M; at least twice the largest message): "
     "larger rings absorb bursts and keep both sides busy"},
    {"wait", "hybrid",
     "spin (busy-wait: lowest latency, one core per waiting side), futex (sleep in the kernel; "
     "on Windows an event), "
     "or hybrid (spin up to spin_us while the peer last ran on another CPU, then sleep; "
     "sleep at once while it shares this CPU)"},
    {"spin_us", "50", "hybrid: the most microseconds one wait spins before sleeping"},
};

static int32_t parse(const ipcb_open_params *p, ipcb_endpoint *ep, uint64_t *ring_size,
                     ipcb_error *error) {
    const char *v;
    int32_t s = plugin_check_option_keys(p, ring_options, 3, "shm.ring", error);
    if (s != IPCB_OK) return s;
    *ring_size = 4u << 20;
    if ((v = plugin_option(p, "ring_size")) != NULL && v[0] &&
        (plugin_parse_bytes(v, (uint64_t)1 << 31, ring_size) != 0 || *ring_size < 4096 ||
         (*ring_size & (*ring_size - 1)) != 0))
        return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                         "option ring_size=%s: expected a power of two from 4K to 2G, e.g. 4M", v);
    ep->wait = WAIT_HYBRID;
    if ((v = plugin_option(p, "wait")) != NULL && v[0]) {
        if (!strcmp(v, "spin"))
            ep->wait = WAIT_SPIN;
        else if (!strcmp(v, "futex"))
            ep->wait = WAIT_FUTEX;
        else if (!strcmp(v, "hybrid"))
            ep->wait = WAIT_HYBRID;
        else
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option wait=%s: expected spin, futex or hybrid", v);
    }
    ep->spin_ns = 50000;
    if ((v = plugin_option(p, "spin_us")) != NULL && v[0]) {
        uint64_t us = 0;
        if (plugin_parse_bytes(v, 1000000, &us) != 0)
            return ipcb_fail(error, IPCB_E_BAD_OPTION, 0,
                             "option spin_us=%s: expected microseconds from 1 to 1000000", v);
        ep->spin_ns = (int64_t)us * 1000;
    }
    ep->last_cpu = -2;
    return IPCB_OK;
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
#ifndef _WIN32
    ep->region.fd = -1;
#endif
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
        ep->map_size = SHM_RING_DATA_OFFSET + ring_size;
        s = shm_os_create(&ep->region, ep->map_size, ep->address, sizeof ep->address, error);
        if (s != IPCB_OK) goto fail;
        ep->ring = (struct shm_ring_header *)ep->region.base;
        ep->data = (unsigned char *)ep->region.base + SHM_RING_DATA_OFFSET;
        memset(ep->ring, 0, sizeof *ep->ring);
        atomic_store_explicit(&ep->ring->cpu[0], -1, memory_order_relaxed);
        atomic_store_explicit(&ep->ring->cpu[1], -1, memory_order_relaxed);
        ep->ring->capacity = ring_size;
        ep->ring->wait_mode = (uint32_t)ep->wait;
        atomic_thread_fence(memory_order_release);
        ep->ring->magic = SHM_RING_MAGIC;
    } else {
        s = shm_os_attach(&ep->region, p->address, SHM_RING_DATA_OFFSET + 4096, error);
        if (s != IPCB_OK) goto fail;
        ep->ring = (struct shm_ring_header *)ep->region.base;
        ep->data = (unsigned char *)ep->region.base + SHM_RING_DATA_OFFSET;
        ep->map_size = ep->region.size;
        /* The mapping may be rounded up to whole pages (Windows): it must hold the ring. */
        if (ep->ring->magic != SHM_RING_MAGIC ||
            ep->ring->capacity + SHM_RING_DATA_OFFSET > ep->map_size) {
            s = ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0, "shm.ring address '%s' is not a ring",
                          p->address);
            goto fail;
        }
        ring_size = ep->ring->capacity;
        ep->map_size = SHM_RING_DATA_OFFSET + ring_size;
        /* Both sides must agree whether anyone may sleep: the creator's choice holds. */
        ep->wait = (int)ep->ring->wait_mode;
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
    atomic_store_explicit(&ep->ring->pid[me], shm_os_self_pid(), memory_order_relaxed);
    publish_cpu(ep);
    ep->can_lazy = ep->wait == WAIT_HYBRID && shm_os_barrier_register();
    atomic_store_explicit(&ep->ring->attached[me], 1, memory_order_release);
    shm_os_wake(&ep->region, &ep->ring->attached[me]);
    while (!other_attached(ep)) {
        if (ep->role == IPCB_ROLE_CONNECTOR && peer_gone(ep)) return peer_lost(error);
        if (deadline >= 0 && posix_now_ns() >= deadline)
            return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "shm.ring: the peer did not attach");
        shm_os_wait(&ep->region, &ep->ring->attached[1 - me], 0, 1000000);
    }
    ep->may_spin = ep->wait == WAIT_SPIN || (ep->wait == WAIT_HYBRID && !shares_cpu(ep));
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

/* Whether a record is there or arrives within 64 looks at the producer's index, in a loop of
 * its own, where this side may spin (one look where it may not, or for a poll): the loop a plain
 * ring writes, which reads the record the moment the index moves. wait_for, the full wait
 * (deadline, the peer's close, sleeping), comes after it; its first deadline check came after
 * 64 spins already. A hybrid side whose peer has just moved onto its CPU spins those 64 at most
 * before wait_for learns so (may_spin follows every 64th data call). */
RING_INLINE int data_soon(ipcb_endpoint *ep, int64_t timeout_ns) {
    const uint64_t tail = atomic_load_explicit(&ep->ring->tail, memory_order_relaxed);
    if (ep->cached_head != tail) return 1;
    for (int i = ep->may_spin && timeout_ns != 0 ? 64 : 1;; cpu_relax()) {
        ep->cached_head = atomic_load_explicit(&ep->ring->head, memory_order_acquire);
        if (ep->cached_head != tail) return 1;
        if (--i == 0) return 0;
    }
}

/* Bytes a record of len needs at ring index `at`, the skip to the start included. */
static uint64_t record_need(ipcb_endpoint *ep, uint64_t at, uint64_t need) {
    uint64_t pos = at & (ep->capacity - 1);
    return (ep->capacity - pos < need ? ep->capacity - pos : 0) + need;
}

/* Writes the record header (and a wrap marker if the record restarts at 0) at index `at`;
 * returns the offset of the payload in the data area. */
static uint64_t place_record(ipcb_endpoint *ep, uint64_t *at, size_t len, uint64_t need) {
    uint64_t pos = *at & (ep->capacity - 1);
    uint32_t header[2];
    if (ep->capacity - pos < need) {
        uint32_t wrap = SHM_WRAP;
        memcpy(ep->data + pos, &wrap, sizeof wrap);
        *at += ep->capacity - pos;
        pos = 0;
    }
    header[0] = (uint32_t)len;
    header[1] = 0;
    memcpy(ep->data + pos, header, sizeof header);
    *at += need;
    return pos + 8;
}

/* ring_send's rare cases, out of line: the refusals, a record that wraps, a wait for room. */
static int32_t send_slow(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                         ipcb_error *error) {
    struct shm_ring_header *r = ep ? ep->ring : NULL;
    uint64_t head, need;
    int32_t s;
    if (ep == NULL || buf == NULL || len == 0 || ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send needs a sending endpoint and data");
    if (ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send while borrowed slots are not published");
    need = 8 + align8(len);
    if (need > ep->capacity / 2)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                         "shm.ring: message of %zu B exceeds half the ring", len);
    head = atomic_load_explicit(&r->head, memory_order_relaxed);
    ep->pending_need = record_need(ep, head, need);
    if (!has_room(ep) && (s = wait_for(ep, has_room, &r->space_seq, &r->producer_waiting,
                                       posix_deadline(timeout_ns), error)) != IPCB_OK)
        return s;
    if (peer_closed(ep))
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the receiver closed the ring");
    memcpy(ep->data + place_record(ep, &head, len, need), buf, len);
    advance(ep, &r->head, head, &r->data_seq, &r->consumer_waiting);
    return IPCB_OK;
}

/* The common case inline: a valid call whose record fits before the end of the ring, with room
 * by the cached tail and the receiver still there. The same steps as send_slow, with nothing
 * else on the way (a round trip is two of these and two receives). */
static int32_t IPCB_CALL ring_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                   int64_t timeout_ns, ipcb_error *error) {
    uint64_t head, need, pos;
    /* capacity / 4: well inside the limit send_slow enforces (a record of half the ring). */
    if (ep == NULL || buf == NULL || len == 0 || ep->direction != IPCB_DIR_SEND ||
        ep->outstanding || len > ep->capacity / 4)
        return send_slow(ep, buf, len, timeout_ns, error);
    need = 8 + align8(len);
    head = atomic_load_explicit(&ep->ring->head, memory_order_relaxed);
    pos = head & (ep->capacity - 1);
    if (ep->capacity - pos < need || ep->capacity - (head - ep->cached_tail) < need ||
        peer_closed(ep))
        return send_slow(ep, buf, len, timeout_ns, error);
    memcpy(ep->data + pos, (uint32_t[2]){(uint32_t)len, 0}, 8);
    memcpy(ep->data + pos + 8, buf, len);
    advance(ep, &ep->ring->head, head + need, &ep->ring->data_seq, &ep->ring->consumer_waiting);
    return IPCB_OK;
}

/* ring_recv's rare cases, out of line: the refusals, the waits, wrap markers, a record too big. */
static int32_t recv_slow(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len, int64_t timeout_ns,
                         ipcb_error *error) {
    struct shm_ring_header *r;
    int32_t s;
    if (len != NULL) *len = 0;
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv needs a receiving endpoint and buffer");
    if (ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "recv while taken messages are not released");
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
            advance(ep, &r->tail, tail + 8 + align8(header[0]), &r->space_seq,
                    &r->producer_waiting);
            return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                             "shm.ring: message of %u B does not fit the %zu-byte buffer",
                             header[0], cap);
        }
        memcpy(buf, ep->data + pos + 8, header[0]);
        *len = header[0];
        advance(ep, &r->tail, tail + 8 + align8(header[0]), &r->space_seq, &r->producer_waiting);
        return IPCB_OK;
    }
}

/* The common case inline: a valid call and a record of at most cap bytes there or arriving in
 * data_soon's spin. The same steps as recv_slow, with nothing else on the way. */
static int32_t IPCB_CALL ring_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                   int64_t timeout_ns, ipcb_error *error) {
    uint64_t tail, pos;
    uint32_t header[2];
    if (ep == NULL || buf == NULL || cap == 0 || len == NULL || ep->direction != IPCB_DIR_RECV ||
        ep->outstanding || !data_soon(ep, timeout_ns))
        return recv_slow(ep, buf, cap, len, timeout_ns, error);
    tail = atomic_load_explicit(&ep->ring->tail, memory_order_relaxed);
    pos = tail & (ep->capacity - 1);
    memcpy(header, ep->data + pos, sizeof header);
    if (header[0] == SHM_WRAP || header[0] > cap)
        return recv_slow(ep, buf, cap, len, timeout_ns, error);
    memcpy(buf, ep->data + pos + 8, header[0]);
    *len = header[0];
    advance(ep, &ep->ring->tail, tail + 8 + align8(header[0]), &ep->ring->space_seq,
            &ep->ring->producer_waiting);
    return IPCB_OK;
}

/* ---- Zero-copy and batches (ABI 1.1) ---------------------------------------------------- */

static int32_t reserve_ends(ipcb_endpoint *ep, uint32_t n, ipcb_error *error) {
    uint64_t *grown;
    if (n <= ep->ends_cap) return IPCB_OK;
    grown = (uint64_t *)realloc(ep->ends, n * sizeof *grown);
    if (grown == NULL) return ipcb_fail(error, IPCB_E_NO_MEMORY, ENOMEM, "out of memory");
    ep->ends = grown;
    ep->ends_cap = n;
    return IPCB_OK;
}

static int32_t IPCB_CALL ring_borrow(ipcb_endpoint *ep, size_t len, uint32_t max_count,
                                     ipcb_msg *slots, uint32_t *count, int64_t timeout_ns,
                                     ipcb_error *error) {
    uint64_t need, head, at;
    uint32_t n = 0;
    int refreshed = 0;
    int32_t s;
    if (count != NULL) *count = 0;
    if (ep == NULL || slots == NULL || count == NULL || len == 0 || max_count == 0 ||
        ep->direction != IPCB_DIR_SEND)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "borrow needs a sending endpoint, len and slots");
    if (ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "borrow while %u borrowed slots are not published", ep->outstanding);
    need = 8 + align8(len);
    if (need > ep->capacity / 2)
        return ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                         "shm.ring: message of %zu B exceeds half the ring", len);
    if ((s = reserve_ends(ep, max_count, error)) != IPCB_OK) return s;
    head = atomic_load_explicit(&ep->ring->head, memory_order_relaxed);
    ep->pending_need = record_need(ep, head, need);
    if (!has_room(ep) &&
        (s = wait_for(ep, has_room, &ep->ring->space_seq, &ep->ring->producer_waiting,
                      posix_deadline(timeout_ns), error)) != IPCB_OK)
        return s;
    if (peer_closed(ep))
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the receiver closed the ring");
    at = head;
    while (n < max_count) {
        uint64_t r = record_need(ep, at, need);
        if (at + r - ep->cached_tail > ep->capacity) { /* no room: look at the tail once more */
            if (refreshed) break;
            ep->cached_tail = atomic_load_explicit(&ep->ring->tail, memory_order_acquire);
            refreshed = 1;
            continue;
        }
        slots[n].data = ep->data + place_record(ep, &at, len, need);
        slots[n].len = len;
        ep->ends[n++] = at;
    }
    ep->outstanding = n;
    *count = n;
    return IPCB_OK;
}

static int32_t IPCB_CALL ring_publish(ipcb_endpoint *ep, uint32_t count, ipcb_error *error) {
    if (ep == NULL || ep->direction != IPCB_DIR_SEND || count > ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "publish of %u slots, %u borrowed", count,
                         ep ? ep->outstanding : 0);
    ep->outstanding = 0;
    if (count == 0) return IPCB_OK;
    advance(ep, &ep->ring->head, ep->ends[count - 1], &ep->ring->data_seq,
            &ep->ring->consumer_waiting);
    return IPCB_OK;
}

/* Walks the records from the consumer's index: fills msgs with up to max of them (or, with
 * copy_into, copies them into the host buffers msgs[i].data of msgs[i].len bytes). Returns the
 * count; *end is the index after the last one, ends[i] (when not NULL) the index after record
 * i, *too_big the length of a record that did not fit its buffer (0 if none). */
static uint32_t walk_records(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t max, int copy_into,
                             uint64_t *ends, uint64_t *end, uint32_t *too_big) {
    uint64_t at = atomic_load_explicit(&ep->ring->tail, memory_order_relaxed);
    uint32_t n = 0;
    *too_big = 0;
    while (n < max) {
        uint64_t pos;
        uint32_t header[2];
        if (at == ep->cached_head) {
            if (n > 0) break;
            ep->cached_head = atomic_load_explicit(&ep->ring->head, memory_order_acquire);
            if (at == ep->cached_head) break;
        }
        pos = at & (ep->capacity - 1);
        memcpy(header, ep->data + pos, sizeof header);
        if (header[0] == SHM_WRAP) {
            at += ep->capacity - pos;
            continue;
        }
        if (copy_into) {
            if (header[0] > msgs[n].len) {
                *too_big = header[0];
                at += 8 + align8(header[0]); /* the oversized message is lost, as with recv */
                break;
            }
            memcpy(msgs[n].data, ep->data + pos + 8, header[0]);
        } else {
            msgs[n].data = ep->data + pos + 8;
        }
        msgs[n].len = header[0];
        at += 8 + align8(header[0]);
        if (ends) ends[n] = at;
        ++n;
    }
    *end = at;
    return n;
}

static int32_t IPCB_CALL ring_take(ipcb_endpoint *ep, uint32_t max_count, ipcb_msg *msgs,
                                   uint32_t *count, int64_t timeout_ns, ipcb_error *error) {
    uint64_t end;
    uint32_t too_big;
    int32_t s;
    if (count != NULL) *count = 0;
    if (ep == NULL || msgs == NULL || count == NULL || max_count == 0 ||
        ep->direction != IPCB_DIR_RECV)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "take needs a receiving endpoint and msgs");
    if (ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "take while %u taken messages are not released",
                         ep->outstanding);
    if ((s = reserve_ends(ep, max_count, error)) != IPCB_OK) return s;
    for (;;) {
        if (!data_soon(ep, timeout_ns) &&
            (s = wait_for(ep, has_data, &ep->ring->data_seq, &ep->ring->consumer_waiting,
                          posix_deadline(timeout_ns), error)) != IPCB_OK)
            return s;
        *count = walk_records(ep, msgs, max_count, 0, ep->ends, &end, &too_big);
        if (*count > 0) break;
        /* Only a wrap marker was there: step over it and wait for the record. */
        atomic_store_explicit(&ep->ring->tail, end, memory_order_release);
    }
    ep->outstanding = *count;
    return IPCB_OK;
}

static int32_t IPCB_CALL ring_release(ipcb_endpoint *ep, uint32_t count, ipcb_error *error) {
    if (ep == NULL || ep->direction != IPCB_DIR_RECV || count > ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "release of %u messages, %u taken", count,
                         ep ? ep->outstanding : 0);
    ep->outstanding = 0;
    if (count == 0) return IPCB_OK;
    advance(ep, &ep->ring->tail, ep->ends[count - 1], &ep->ring->space_seq,
            &ep->ring->producer_waiting);
    return IPCB_OK;
}

static int32_t IPCB_CALL ring_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                         uint32_t *sent, int64_t timeout_ns, ipcb_error *error) {
    struct shm_ring_header *r;
    uint64_t head;
    int64_t deadline = posix_deadline(timeout_ns);
    uint32_t i;
    int32_t s;
    if (sent != NULL) *sent = 0;
    if (ep == NULL || msgs == NULL || sent == NULL || ep->direction != IPCB_DIR_SEND ||
        ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "send_batch needs a sending endpoint and msgs");
    r = ep->ring;
    head = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (i = 0; i < count; ++i) {
        uint64_t need = 8 + align8(msgs[i].len);
        uint64_t off;
        if (msgs[i].data == NULL || msgs[i].len == 0 || need > ep->capacity / 2) {
            s = msgs[i].len == 0 || msgs[i].data == NULL
                    ? ipcb_fail(error, IPCB_E_INVALID, 0, "message %u is empty", i)
                    : ipcb_fail(error, IPCB_E_TOO_BIG, 0,
                                "shm.ring: message of %llu B exceeds half the ring",
                                (unsigned long long)msgs[i].len);
            goto publish;
        }
        ep->pending_need = record_need(ep, head, need);
        if (ep->capacity - (head - ep->cached_tail) < ep->pending_need) {
            /* Full: publish what is written, then wait for room. */
            advance(ep, &r->head, head, &r->data_seq, &r->consumer_waiting);
            *sent = i;
            if (!has_room(ep) && (s = wait_for(ep, has_room, &r->space_seq, &r->producer_waiting,
                                               deadline, error)) != IPCB_OK)
                return s;
        }
        off = place_record(ep, &head, (size_t)msgs[i].len, need);
        memcpy(ep->data + off, msgs[i].data, (size_t)msgs[i].len);
    }
    s = IPCB_OK;
publish:
    advance(ep, &r->head, head, &r->data_seq, &r->consumer_waiting);
    *sent = i;
    if (s == IPCB_OK && peer_closed(ep))
        return ipcb_fail(error, IPCB_E_CLOSED, 0, "shm.ring: the receiver closed the ring");
    return s;
}

static int32_t IPCB_CALL ring_recv_batch(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t count,
                                         uint32_t *received, int64_t timeout_ns,
                                         ipcb_error *error) {
    uint64_t end;
    uint32_t too_big, n;
    int32_t s;
    if (received != NULL) *received = 0;
    if (ep == NULL || msgs == NULL || received == NULL || count == 0 ||
        ep->direction != IPCB_DIR_RECV || ep->outstanding)
        return ipcb_fail(error, IPCB_E_INVALID, 0,
                         "recv_batch needs a receiving endpoint and msgs");
    for (;;) {
        if (!data_soon(ep, timeout_ns) &&
            (s = wait_for(ep, has_data, &ep->ring->data_seq, &ep->ring->consumer_waiting,
                          posix_deadline(timeout_ns), error)) != IPCB_OK)
            return s;
        n = walk_records(ep, msgs, count, 1, NULL, &end, &too_big);
        if (n > 0 || too_big) break;
        /* Only a wrap marker was there: step over it and wait for the record. */
        atomic_store_explicit(&ep->ring->tail, end, memory_order_release);
    }
    advance(ep, &ep->ring->tail, end, &ep->ring->space_seq, &ep->ring->producer_waiting);
    *received = n;
    if (too_big)
        return ipcb_fail(error, IPCB_E_TRUNCATED, 0,
                         "shm.ring: message of %u B does not fit its %llu-byte buffer", too_big,
                         (unsigned long long)msgs[n].len);
    return IPCB_OK;
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
#ifdef _WIN32
    .description =
        "single-producer single-consumer ring in shared memory (a pagefile-backed "
        "file mapping, current user only), one way; wait by spin, event or hybrid",
#else
    .description =
        "single-producer single-consumer ring in shared memory (memfd), one way; "
        "wait by spin, futex or hybrid",
#endif
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
    .borrow = ring_borrow,
    .publish = ring_publish,
    .take = ring_take,
    .release = ring_release,
    .send_batch = ring_send_batch,
    .recv_batch = ring_recv_batch,
};

static const ipcb_transport *const shm_transports[] = {&ring_transport};

static const ipcb_plugin shm_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "shm",
    .version = "0.2.0",
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
