/* The reference for ipchost's epoll engine (scripts/bench.sh): N stream connections between two
 * processes, each side one thread with one epoll set, messages of SIZE bytes sent round robin
 * with non-blocking writes (a partial write resumes where it stopped), read into one buffer.
 * What ipchost --io epoll --threads 1 does, without its headers, checks and bookkeeping, turns
 * included (host/timed/readiness_engine.cpp): a turn is 16 messages a stream, or one when a
 * message is 64 KiB or more; a receiver reads a message's worth a call, level-triggered, up to
 * 16 calls a turn and stops at a short one, or with large messages up to 256 KiB on past short
 * reads until the socket would block.
 *
 *   epollref tcp|unix STREAMS SIZE SECONDS   -> "mb_per_sec=... msgs_per_sec=... setup_per_sec=..."
 *
 * Sender on CPU 0, receiver on CPU 1. tcp: 127.0.0.1, one listening socket, STREAMS connections;
 * unix: socketpair(AF_UNIX, SOCK_STREAM). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop_connections.h"

#define LARGE_CALL (64 * 1024)

static void receiver(int n, const int *in, size_t size) {
    int ep = epoll_create1(0), open = n;
    struct epoll_event ev, events[256];
    static char buf[256 * 1024];
    const size_t call = size < sizeof buf ? size : sizeof buf;
    const int large = size >= LARGE_CALL;
    const int calls = large ? (int)(sizeof buf / call) : 16; /* call <= sizeof buf */
    uint64_t bytes = 0;
    int64_t first = 0, last = 0;
    pin(1);
    for (int i = 0; i < n; ++i) {
        fcntl(in[i], F_SETFL, O_NONBLOCK);
        ev.events = EPOLLIN; /* level-triggered, as ipchost's receive-only handles */
        ev.data.u32 = (uint32_t)i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, in[i], &ev) != 0) die("epoll_ctl");
    }
    while (open > 0) {
        int k = epoll_wait(ep, events, 256, 5000);
        if (k <= 0) break;
        for (int e = 0; e < k; ++e) {
            int fd = in[events[e].data.u32];
            for (int c = 0; c < calls; ++c) {
                ssize_t r = read(fd, buf, call);
                if (r > 0) {
                    if (!first) first = now_ns();
                    bytes += (uint64_t)r;
                    last = now_ns();
                    if ((size_t)r < call && !large) break; /* emptied: the next wait says more */
                    continue;
                }
                if (r == 0) {
                    --open;
                    close(fd);
                }
                break;
            }
        }
    }
    double s = (double)(last - first) / 1e9;
    printf("mb_per_sec=%.1f msgs_per_sec=%.0f\n", s > 0 ? (double)bytes / s / 1e6 : 0,
           s > 0 ? (double)(bytes / size) / s : 0);
    fflush(stdout);
}

static void sender(int n, const int *out, size_t size, double seconds) {
    int ep = epoll_create1(0);
    struct epoll_event ev, events[256];
    size_t *offset = calloc((size_t)n, sizeof *offset);
    char *msg = malloc(size);
    int64_t end;
    memset(msg, 'x', size);
    pin(0);
    for (int i = 0; i < n; ++i) {
        fcntl(out[i], F_SETFL, O_NONBLOCK);
        ev.events = EPOLLOUT; /* level-triggered: every writable socket, every wait */
        ev.data.u32 = (uint32_t)i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, out[i], &ev) != 0) die("epoll_ctl");
    }
    end = now_ns() + (int64_t)(seconds * 1e9);
    while (now_ns() < end) {
        int k = epoll_wait(ep, events, 256, 100);
        for (int e = 0; e < k; ++e) {
            int i = (int)events[e].data.u32;
            const int turn = size >= LARGE_CALL ? 1 : 16; /* as ipchost's turns */
            for (int budget = 0; budget < turn; ++budget) {
                ssize_t w = write(out[i], msg + offset[i], size - offset[i]);
                if (w <= 0) break;
                offset[i] += (size_t)w;
                if (offset[i] == size) offset[i] = 0;
            }
        }
    }
    for (int i = 0; i < n; ++i) close(out[i]);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: epollref tcp|unix STREAMS SIZE SECONDS\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t size = (size_t)atol(argv[3]);
    double seconds = atof(argv[4]);
    int *out = calloc((size_t)n, sizeof *out), *in = calloc((size_t)n, sizeof *in);
    double setup = connect_pairs(argv[1], n, out, in);
    signal(SIGPIPE, SIG_IGN);
    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < n; ++i) close(out[i]);
        receiver(n, in, size);
        _exit(0);
    }
    for (int i = 0; i < n; ++i) close(in[i]);
    sender(n, out, size, seconds);
    waitpid(child, NULL, 0);
    fprintf(stderr, "setup_per_sec=%.0f\n", setup > 0 ? n / setup : 0);
    return 0;
}
