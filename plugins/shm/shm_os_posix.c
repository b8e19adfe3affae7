/* shm.ring's system calls on Linux: a memfd (nothing named, so nothing left behind), futexes. */
#define _GNU_SOURCE
#include "shm_os.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ipcbench/error_format.h"

static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

static int32_t map(shm_os_region *r, ipcb_error *error) {
    void *m = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (m == MAP_FAILED || m == NULL)
        return ipcb_fail_errno(error, errno, "shm.ring: mmap %zu B", r->size);
    r->base = m;
    return IPCB_OK;
}

int32_t shm_os_create(shm_os_region *r, size_t size, char *address, size_t cap, ipcb_error *error) {
    memset(r, 0, sizeof *r);
    r->fd = memfd_create("ipcbench-shm-ring", MFD_CLOEXEC);
    if (r->fd < 0) return ipcb_fail_errno(error, errno, "memfd_create");
    r->size = size;
    if (ftruncate(r->fd, (off_t)size) != 0)
        return ipcb_fail_errno(error, errno, "shm.ring: ftruncate to %zu B", size);
    snprintf(address, cap, "/proc/%ld/fd/%d", (long)getpid(), r->fd);
    return map(r, error);
}

int32_t shm_os_attach(shm_os_region *r, const char *address, size_t min_size, ipcb_error *error) {
    struct stat st;
    long pid = 0;
    int n = -1;
    char tail = 0;
    memset(r, 0, sizeof *r);
    r->fd = -1;
    if (address == NULL || sscanf(address, "/proc/%ld/fd/%d%c", &pid, &n, &tail) != 2)
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                         "shm.ring address '%s' is not of the form /proc/<pid>/fd/<n>",
                         address ? address : "(null)");
    r->fd = open(address, O_RDWR | O_CLOEXEC);
    if (r->fd < 0 || fstat(r->fd, &st) != 0 || st.st_size < (off_t)min_size)
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, errno,
                         "shm.ring address '%s' is not the ring of a live process", address);
    r->size = (size_t)st.st_size;
    return map(r, error);
}

void shm_os_release(shm_os_region *r) {
    if (r->base != NULL) munmap(r->base, r->size);
    if (r->fd >= 0) close(r->fd);
    r->base = NULL;
    r->fd = -1;
}

int shm_os_wait(shm_os_region *r, _Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec ts;
    (void)r;
    ts.tv_sec = (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec = (long)(timeout_ns % 1000000000);
    return futex(word, FUTEX_WAIT, expected, &ts) != 0 && errno == ETIMEDOUT;
}

void shm_os_wake(shm_os_region *r, _Atomic uint32_t *word) {
    (void)r;
    futex(word, FUTEX_WAKE, 1, NULL);
}

int32_t shm_os_current_cpu(void) {
    return (int32_t)sched_getcpu(); /* the vDSO: a few ns, no system call */
}

int shm_os_barrier_register(void) {
    const long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) return 0;
    return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

void shm_os_remote_barrier(void) {
    syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
}

int32_t shm_os_self_pid(void) {
    return (int32_t)getpid();
}

int shm_os_process_gone(int32_t pid) {
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}
