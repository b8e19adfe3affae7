/* Reference loops for scripts/bench.sh: the same system calls each ipchost transport makes, in
 * plain C with nothing around them, so `ipchost / refloop` shows what the harness costs.
 *
 *   refloop tput  TRANSPORT SIZE SECONDS   one-way: prints mb_per_sec and msgs_per_sec
 *   refloop lat   TRANSPORT SIZE SECONDS   ping-pong: prints round-trip p50_ns and mean_ns
 *   refloop memcpy - SIZE SECONDS          one core copying SIZE-byte blocks into a 4 MiB area,
 *                                          as a ring writer does: prints mb_per_sec
 *
 * TRANSPORT: fifo, unix, tcp, sysv, posix, shm. The writer (pinger) runs on CPU 0 and the reader
 * (ponger) on CPU 1, as bench.sh pins ipchost with --affinity 0,1. Timing follows ipchost's:
 * the reader's window runs from the first message to the end marker. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop_basics.h"

/* One direction of a channel: write/read whole messages. */
struct chan {
    int kind; /* 0 fd stream, 1 sysv, 2 posix mq, 3 shm ring */
    int fd;
    int qid;
    mqd_t mq;
    struct ring *ring;
    char *scratch;
    uint64_t cached; /* ring: the other side's index as last read, as shm.ring caches it */
};

/* shm: the same SPSC ring as shm.ring with wait=spin: records of {length, pad} + payload padded
 * to 8 bytes, a wrap marker, and each side caching the other's index until it runs out. */
struct ring {
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;
    _Alignas(64) uint64_t cap;
    unsigned char data[];
};

static void send_all(struct chan *c, const void *buf, size_t len) {
    if (c->kind == 0) {
        const char *p = buf;
        while (len) {
            ssize_t n = write(c->fd, p, len);
            if (n <= 0) die("write");
            p += n;
            len -= (size_t)n;
        }
    } else if (c->kind == 1) {
        memcpy(c->scratch + sizeof(long), buf, len);
        *(long *)c->scratch = 1;
        if (msgsnd(c->qid, c->scratch, len, 0) != 0) die("msgsnd");
    } else if (c->kind == 2) {
        if (mq_send(c->mq, buf, len, 0) != 0) die("mq_send");
    } else {
        struct ring *r = c->ring;
        uint64_t need = 8 + ((len + 7) & ~(uint64_t)7);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
        uint64_t pos = head & (r->cap - 1), skip = r->cap - pos < need ? r->cap - pos : 0;
        while (r->cap - (head - c->cached) < need + skip) {
            c->cached = atomic_load_explicit(&r->tail, memory_order_acquire);
            if (r->cap - (head - c->cached) >= need + skip) break;
            __builtin_ia32_pause();
        }
        if (skip) {
            *(uint32_t *)(r->data + pos) = 0xffffffffu;
            head += skip;
            pos = 0;
        }
        *(uint32_t *)(r->data + pos) = (uint32_t)len;
        memcpy(r->data + pos + 8, buf, len);
        atomic_store_explicit(&r->head, head + need, memory_order_release);
    }
}

static void recv_all(struct chan *c, void *buf, size_t len) {
    if (c->kind == 0) {
        char *p = buf;
        while (len) {
            ssize_t n = read(c->fd, p, len);
            if (n <= 0) die("read");
            p += n;
            len -= (size_t)n;
        }
    } else if (c->kind == 1) {
        if (msgrcv(c->qid, c->scratch, len, 0, 0) < 0) die("msgrcv");
        memcpy(buf, c->scratch + sizeof(long), len);
    } else if (c->kind == 2) {
        if (mq_receive(c->mq, buf, 65536, NULL) < 0) die("mq_receive");
    } else {
        struct ring *r = c->ring;
        for (;;) {
            uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
            while (c->cached == tail) {
                c->cached = atomic_load_explicit(&r->head, memory_order_acquire);
                if (c->cached != tail) break;
                __builtin_ia32_pause();
            }
            uint64_t pos = tail & (r->cap - 1);
            uint32_t n = *(uint32_t *)(r->data + pos);
            if (n == 0xffffffffu) {
                atomic_store_explicit(&r->tail, tail + (r->cap - pos), memory_order_release);
                continue;
            }
            memcpy(buf, r->data + pos + 8, n);
            atomic_store_explicit(&r->tail, tail + 8 + ((n + 7) & ~(uint64_t)7),
                                  memory_order_release);
            return;
        }
    }
}

/* Makes a channel for one direction; `writer` selects the end this process keeps after fork. */
static void make_pair(const char *kind, size_t size, struct chan *w, struct chan *r) {
    memset(w, 0, sizeof *w);
    memset(r, 0, sizeof *r);
    if (!strcmp(kind, "fifo")) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/refloop-%d-%ld", getpid(), (long)now_ns());
        if (mkfifo(path, 0600) != 0) die("mkfifo");
        r->fd = open(path, O_RDONLY | O_NONBLOCK);
        w->fd = open(path, O_WRONLY);
        fcntl(r->fd, F_SETFL, 0);
        unlink(path);
    } else if (!strcmp(kind, "unix") || !strcmp(kind, "tcp")) {
        int one = 1;
        if (!strcmp(kind, "unix")) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) die("socketpair");
            w->fd = sv[0];
            r->fd = sv[1];
        } else {
            struct sockaddr_in a;
            socklen_t len = sizeof a;
            int l = socket(AF_INET, SOCK_STREAM, 0);
            memset(&a, 0, sizeof a);
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1)) die("listen");
            getsockname(l, (struct sockaddr *)&a, &len);
            w->fd = socket(AF_INET, SOCK_STREAM, 0);
            if (connect(w->fd, (struct sockaddr *)&a, sizeof a)) die("connect");
            r->fd = accept(l, NULL, NULL);
            close(l);
            setsockopt(w->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            setsockopt(r->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
    } else if (!strcmp(kind, "sysv")) {
        w->kind = r->kind = 1;
        w->qid = r->qid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
        if (w->qid < 0) die("msgget");
        w->scratch = malloc(sizeof(long) + size);
        r->scratch = malloc(sizeof(long) + size);
    } else if (!strcmp(kind, "posix")) {
        char name[64];
        struct mq_attr attr = {0};
        attr.mq_maxmsg = 10;
        attr.mq_msgsize = (long)size;
        snprintf(name, sizeof name, "/refloop-%d-%ld", getpid(), (long)now_ns());
        w->kind = r->kind = 2;
        w->mq = mq_open(name, O_WRONLY | O_CREAT | O_EXCL, 0600, &attr);
        r->mq = mq_open(name, O_RDONLY);
        if (w->mq == (mqd_t)-1 || r->mq == (mqd_t)-1) die("mq_open");
        mq_unlink(name);
    } else if (!strcmp(kind, "shm")) {
        uint64_t cap = 4u << 20;
        struct ring *ring = mmap(NULL, sizeof(struct ring) + cap, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (ring == MAP_FAILED) die("mmap");
        ring->cap = cap;
        w->kind = r->kind = 3;
        w->ring = r->ring = ring;
    } else {
        fprintf(stderr, "unknown transport %s\n", kind);
        exit(2);
    }
}

static int cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *mode, *kind;
    size_t size;
    double seconds;
    struct chan fw, fr, bw, br; /* forward and backward */
    int report[2];
    pid_t pid;
    if (argc != 5) {
        fprintf(stderr, "usage: refloop tput|lat fifo|unix|tcp|sysv|posix|shm SIZE SECONDS\n");
        return 2;
    }
    mode = argv[1];
    kind = argv[2];
    size = (size_t)atol(argv[3]);
    seconds = atof(argv[4]);
    if (size < 8) size = 8;
    if (!strcmp(mode, "memcpy")) {
        size_t area = 4u << 20, at = 0;
        unsigned char *src = malloc(size), *dst = malloc(area + size);
        uint64_t copies = 0;
        int64_t start, stop;
        memset(src, 7, size);
        memset(dst, 0, area + size);
        pin(0);
        start = now_ns();
        stop = start + (int64_t)(seconds * 1e9);
        for (;;) {
            memcpy(dst + at, src, size);
            __asm__ volatile("" : : "r"(dst) : "memory"); /* keep the copy */
            at = at + size >= area ? 0 : at + size;
            if ((++copies & 15) == 0 && now_ns() >= stop) break;
        }
        printf("mb_per_sec=%.1f\n", copies * (double)size / ((now_ns() - start) / 1e9) / 1e6);
        return 0;
    }
    make_pair(kind, size, &fw, &fr);
    if (!strcmp(mode, "lat")) {
        if (!strcmp(kind, "unix") || !strcmp(kind, "tcp")) {
            /* One connection both ways, as ipchost uses a duplex transport (and as sockperf and
             * qperf do): the pong goes back on the ponger's end of the same socket. */
            bw = fr;
            br = fw;
        } else {
            make_pair(kind, size, &bw, &br);
        }
    }
    if (pipe(report) != 0) die("pipe");
    pid = fork();
    if (pid == 0) { /* the writer / pinger, on CPU 0 */
        unsigned char *buf = calloc(1, size), *in = calloc(1, size);
        int64_t end;
        uint64_t seq = 0;
        /* Real pages: an untouched calloc'd buffer maps the shared zero page, a 1 MiB source that
         * fits in L1 (ipchost's buffers hold a pattern). */
        memset(buf, 0x5a, size);
        memset(in, 0xa5, size);
        pin(0);
        end = now_ns() + (int64_t)(seconds * 1e9);
        if (!strcmp(mode, "tput")) {
            for (;;) {
                memcpy(buf, &seq, 8);
                send_all(&fw, buf, size);
                ++seq;
                if ((seq & 15) == 0 && now_ns() >= end) break;
            }
            seq = UINT64_MAX; /* end marker */
            memcpy(buf, &seq, 8);
            send_all(&fw, buf, size);
        } else {
            size_t cap = 4000000, n = 0;
            int64_t *rtt = malloc(cap * sizeof *rtt), t = now_ns();
            /* Warm-up as ipchost --warmup 0.1 does: 0.1 s (at most 2000 round trips), then the
             * timed phase of `seconds`. */
            for (int i = 0; i < 2000 && now_ns() < t + 100000000; ++i) {
                send_all(&fw, buf, size);
                recv_all(&br, in, size);
            }
            t = now_ns();
            end = t + (int64_t)(seconds * 1e9);
            while (n < cap) {
                int64_t t0 = t;
                send_all(&fw, buf, size);
                recv_all(&br, in, size);
                t = now_ns();
                rtt[n++] = t - t0;
                if (t >= end) break;
            }
            seq = UINT64_MAX;
            memcpy(buf, &seq, 8);
            send_all(&fw, buf, size);
            qsort(rtt, n, sizeof *rtt, cmp);
            double mean = 0;
            for (size_t i = 0; i < n; ++i) mean += (double)rtt[i];
            printf("p50_ns=%lld mean_ns=%.0f round_trips=%zu\n", (long long)rtt[n / 2], mean / n,
                   n);
            fflush(stdout);
        }
        _exit(0);
    }
    { /* the reader / ponger, on CPU 1 */
        unsigned char *buf = calloc(1, size);
        uint64_t count = 0, seq = 0;
        memset(buf, 0xa5, size);
        int64_t first = 0, end = 0;
        pin(1);
        if (!strcmp(mode, "tput")) {
            for (;;) {
                recv_all(&fr, buf, size);
                memcpy(&seq, buf, 8);
                if (seq == UINT64_MAX) break;
                if (count++ == 0) first = now_ns();
            }
            end = now_ns();
            printf("mb_per_sec=%.1f msgs_per_sec=%.0f\n",
                   count * (double)size / ((end - first) / 1e9) / 1e6,
                   count / ((end - first) / 1e9));
        } else {
            for (;;) {
                recv_all(&fr, buf, size);
                memcpy(&seq, buf, 8);
                if (seq == UINT64_MAX) break;
                send_all(&bw, buf, size);
            }
        }
        waitpid(pid, NULL, 0);
        if (fw.kind == 1) msgctl(fw.qid, IPC_RMID, NULL);
        if (!strcmp(mode, "lat") && bw.kind == 1) msgctl(bw.qid, IPC_RMID, NULL);
    }
    return 0;
}
