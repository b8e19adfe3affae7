/* The reference for ipchost's io_uring engine (scripts/bench.sh): N stream connections between
 * two processes, each side one thread with one ring, one send (or receive) of SIZE bytes in
 * flight per connection, all new submissions passed with the wait for completions
 * (io_uring_submit_and_wait), a partial send resubmitted for its rest. What ipchost --io uring
 * --threads 1 does, without its headers, checks and bookkeeping.
 *
 *   uringref tcp|unix STREAMS SIZE SECONDS   -> "mb_per_sec=... msgs_per_sec=..."
 *
 * Sender on CPU 0, receiver on CPU 1; the connections as epollref.c makes them. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop_connections.h"

static struct io_uring ring_for(int n) {
    struct io_uring ring;
    unsigned entries = 64;
    while (entries < (unsigned)n && entries < 32768) entries *= 2;
    if (io_uring_queue_init(entries, &ring, 0) < 0) die("io_uring_queue_init");
    return ring;
}

static void submit(struct io_uring *ring, int send, int fd, char *buf, size_t len, uint64_t tag) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe == NULL) {
        io_uring_submit(ring);
        sqe = io_uring_get_sqe(ring);
    }
    if (send)
        io_uring_prep_send(sqe, fd, buf, len, MSG_NOSIGNAL);
    else
        io_uring_prep_recv(sqe, fd, buf, len, 0);
    io_uring_sqe_set_data64(sqe, tag);
}

static void receiver(int n, const int *in, size_t size) {
    struct io_uring ring;
    char *bufs = malloc((size_t)n * size);
    uint64_t bytes = 0;
    int64_t first = 0, last = 0;
    int open = n;
    pin(1);
    ring = ring_for(n);
    for (int i = 0; i < n; ++i) submit(&ring, 0, in[i], bufs + (size_t)i * size, size, (uint64_t)i);
    while (open > 0) {
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        if (io_uring_submit_and_wait(&ring, 1) < 0) break;
        io_uring_for_each_cqe(&ring, head, cqe) {
            const int i = (int)io_uring_cqe_get_data64(cqe);
            ++seen;
            if (cqe->res <= 0) {
                --open;
                continue;
            }
            if (!first) first = now_ns();
            bytes += (uint64_t)cqe->res;
            last = now_ns();
            submit(&ring, 0, in[i], bufs + (size_t)i * size, size, (uint64_t)i);
        }
        io_uring_cq_advance(&ring, seen);
    }
    double s = (double)(last - first) / 1e9;
    printf("mb_per_sec=%.1f msgs_per_sec=%.0f\n", s > 0 ? (double)bytes / s / 1e6 : 0,
           s > 0 ? (double)(bytes / size) / s : 0);
    fflush(stdout);
}

static void sender(int n, const int *out, size_t size, double seconds) {
    struct io_uring ring;
    char *msg = malloc(size);
    size_t *done = calloc((size_t)n, sizeof *done);
    int64_t end;
    int inflight = 0, stopping = 0;
    memset(msg, 'x', size);
    pin(0);
    ring = ring_for(n);
    for (int i = 0; i < n; ++i, ++inflight) submit(&ring, 1, out[i], msg, size, (uint64_t)i);
    end = now_ns() + (int64_t)(seconds * 1e9);
    while (inflight > 0) {
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        if (io_uring_submit_and_wait(&ring, 1) < 0) break;
        if (!stopping && now_ns() >= end) stopping = 1;
        io_uring_for_each_cqe(&ring, head, cqe) {
            const int i = (int)io_uring_cqe_get_data64(cqe);
            ++seen;
            --inflight;
            if (cqe->res <= 0) continue;
            done[i] += (size_t)cqe->res;
            if (done[i] < size) { /* partial: the rest */
                submit(&ring, 1, out[i], msg + done[i], size - done[i], (uint64_t)i);
                ++inflight;
            } else if (!stopping) {
                done[i] = 0;
                submit(&ring, 1, out[i], msg, size, (uint64_t)i);
                ++inflight;
            }
        }
        io_uring_cq_advance(&ring, seen);
    }
    for (int i = 0; i < n; ++i) close(out[i]);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: uringref tcp|unix STREAMS SIZE SECONDS\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t size = (size_t)atol(argv[3]);
    int *out = calloc((size_t)n, sizeof *out), *in = calloc((size_t)n, sizeof *in);
    connect_pairs(argv[1], n, out, in);
    signal(SIGPIPE, SIG_IGN);
    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < n; ++i) close(out[i]);
        receiver(n, in, size);
        _exit(0);
    }
    for (int i = 0; i < n; ++i) close(in[i]);
    sender(n, out, size, atof(argv[4]));
    waitpid(child, NULL, 0);
    return 0;
}
