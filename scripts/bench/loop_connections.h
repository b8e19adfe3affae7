/* The connections the stream reference loops of scripts/bench/ measure (epollref.c,
 * uringref.c): n connected pairs, out[i] the sender's end and in[i] the receiver's. tcp:
 * 127.0.0.1 through one listening socket, TCP_NODELAY as ipchost's socket.tcp; unix:
 * socketpair(AF_UNIX, SOCK_STREAM). The open-file limit is raised as far as allowed first (two
 * descriptors a pair). Returns the seconds the set-up took. */
#ifndef IPCB_BENCH_LOOP_CONNECTIONS_H
#define IPCB_BENCH_LOOP_CONNECTIONS_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loop_basics.h"

static inline double connect_pairs(const char *kind, int n, int *out, int *in) {
    struct rlimit lim;
    int64_t t0;
    getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
    t0 = now_ns();
    if (strcmp(kind, "unix") == 0) {
        for (int i = 0; i < n; ++i) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) die("socketpair");
            out[i] = sv[0];
            in[i] = sv[1];
        }
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET};
        socklen_t len = sizeof a;
        int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 128) != 0)
            die("listen");
        getsockname(l, (struct sockaddr *)&a, &len);
        for (int i = 0; i < n; ++i) {
            out[i] = socket(AF_INET, SOCK_STREAM, 0);
            if (out[i] < 0 || connect(out[i], (struct sockaddr *)&a, sizeof a) != 0) die("connect");
            setsockopt(out[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            in[i] = accept(l, NULL, NULL);
            if (in[i] < 0) die("accept");
        }
        close(l);
    }
    return (double)(now_ns() - t0) / 1e9;
}

#endif
