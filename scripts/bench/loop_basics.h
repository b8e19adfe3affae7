/* What the reference loops of scripts/bench/ share: the clock ipchost reads, pinning a process
 * to a CPU as bench.sh pins ipchost (--affinity 0,1), and giving up with the OS's words. */
#ifndef IPCB_BENCH_LOOP_BASICS_H
#define IPCB_BENCH_LOOP_BASICS_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static inline void die(const char *what) {
    perror(what);
    exit(2);
}

#endif
