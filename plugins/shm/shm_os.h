/* What shm.ring needs from the system, one implementation per system (shm_os_posix.c,
 * shm_os_windows.c): shared memory the creator makes and names and the connector maps, a sleep on
 * a 32-bit word of it that the other process can end, and whether a process still lives. */
#ifndef IPCB_SHM_OS_H
#define IPCB_SHM_OS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcbench/transport.h"

#define SHM_OS_WORDS 4 /* words a side may sleep on: data_seq, space_seq, attached[0], [1] */

typedef struct shm_os_region {
    void *base;  /* the mapping: a struct shm_ring_header, then the data */
    size_t size; /* bytes mapped */
#ifdef _WIN32
    void *mapping;              /* pagefile-backed file mapping, named Local\ipcbench-shm-... */
    void *events[SHM_OS_WORDS]; /* auto-reset events, one per word (named after the mapping) */
#else
    int fd; /* the memfd */
#endif
} shm_os_region;

/* Creator: size bytes of zeroed shared memory, mapped; writes the address a connector opens into
 * address (POSIX: /proc/<pid>/fd/<n> of a memfd, nothing named; Windows: a random name with a
 * DACL for the current user only). */
int32_t shm_os_create(shm_os_region *r, size_t size, char *address, size_t cap, ipcb_error *error);
/* Connector: maps what address names, at least min_size bytes (r->size says how many).
 * IPCB_E_BAD_ADDRESS when it is not there. */
int32_t shm_os_attach(shm_os_region *r, const char *address, size_t min_size, ipcb_error *error);
/* Unmaps and closes; a zeroed region is ignored. */
void shm_os_release(shm_os_region *r);

/* Sleeps while *word == expected, at most timeout_ns (>= 0); may return early (spuriously).
 * Returns 1 when the time ran out. `word` must be one of the SHM_OS_WORDS words of the header. */
int shm_os_wait(shm_os_region *r, _Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);
/* Ends the sleep of whoever waits on `word` (there is at most one waiter per word). */
void shm_os_wake(shm_os_region *r, _Atomic uint32_t *word);

/* Lets other processes' shm_os_remote_barrier reach this process's threads; 1 when the system
 * offers that (Linux: membarrier MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED), else 0. */
int shm_os_barrier_register(void);
/* A full memory barrier on every CPU running a registered process (Linux: membarrier
 * GLOBAL_EXPEDITED), so that a sleeper sees an index a lazy side stored with a plain store, or
 * that side sees the sleeper's waiting flag. Only called after shm_os_barrier_register said 1. */
void shm_os_remote_barrier(void);

int32_t shm_os_self_pid(void);
/* The CPU the calling thread runs on now, or -1 when the system cannot say. */
int32_t shm_os_current_cpu(void);
/* True when no process `pid` runs any more (a crashed peer never sets its closed flag). */
int shm_os_process_gone(int32_t pid);

#endif
