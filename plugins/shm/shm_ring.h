/* The single-producer single-consumer ring in shared memory behind shm.ring. */
#ifndef IPCB_SHM_RING_H
#define IPCB_SHM_RING_H

#include <stdatomic.h>
#include <stdint.h>

#define SHM_RING_MAGIC 0x33474e5242435049ull /* "IPCBRNG3" */
#define SHM_RING_DATA_OFFSET 4096u
#define SHM_WRAP 0xffffffffu /* record length marking "continue at offset 0" */

/* The mapping starts with this header; the data area follows at SHM_RING_DATA_OFFSET. The
 * producer's and the consumer's indices live on separate cache lines so they do not bounce.
 * Indices count bytes since the start and never wrap (64 bits). Records are an 8-byte header
 * {length, reserved} and the payload padded to 8 bytes; a record never straddles the end. */
struct shm_ring_header {
    uint64_t magic;
    uint64_t capacity;                  /* data bytes, a power of two */
    uint32_t wait_mode;                 /* the creator's wait option: 0 spin, 1 futex, 2 hybrid */
    _Alignas(64) _Atomic uint64_t head; /* producer: bytes published */
    _Atomic uint32_t data_seq;          /* futex word: bumped when data is published */
    _Atomic uint32_t consumer_waiting;
    _Alignas(64) _Atomic uint64_t tail; /* consumer: bytes consumed */
    _Atomic uint32_t space_seq;         /* futex word: bumped when space is freed */
    _Atomic uint32_t producer_waiting;
    _Alignas(64) _Atomic uint32_t attached[2]; /* [0] creator, [1] connector; futex words */
    _Atomic uint32_t closed[2];
    _Atomic int32_t pid[2]; /* each side's process, so a waiter can tell a crashed peer */
    /* The CPU each side last ran on (-1: not known), published when it waits, connects and
     * every 64th data call, written only when it changed. wait=hybrid spins only while the
     * peer's is another CPU than the spinner's: on one CPU the spin would only hold the core
     * the peer needs. */
    _Atomic int32_t cpu[2];
    /* 1 while that side publishes its index with a plain store (wait=hybrid, the two sides on
     * different CPUs): a side about to sleep then issues a barrier on the other's CPU
     * (shm_os_remote_barrier) instead of that side paying a full fence on every message. */
    _Atomic uint32_t lazy[2];
};

#endif
