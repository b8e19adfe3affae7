/* shm.ring's system calls on Windows: a pagefile-backed file mapping with a random name and a
 * DACL for the current user only, and one auto-reset event per word a side may sleep on (an
 * event set before its waiter sleeps stays set, so no wake-up is lost). */
#include "shm_os.h"

#include <windows.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ipcbench/error_format.h"
#include "shm_ring.h"
#include "win_io.h"

#define NAME_PREFIX "Local\\ipcbench-shm-"

static const size_t word_offsets[SHM_OS_WORDS] = {
    offsetof(struct shm_ring_header, data_seq), offsetof(struct shm_ring_header, space_seq),
    offsetof(struct shm_ring_header, attached), offsetof(struct shm_ring_header, attached) + 4};

static int word_index(const shm_os_region *r, _Atomic uint32_t *word) {
    size_t offset = (size_t)((const char *)word - (const char *)r->base);
    int i;
    for (i = 0; i < SHM_OS_WORDS; ++i)
        if (word_offsets[i] == offset) return i;
    return -1;
}

/* Only names this plugin makes: the prefix, then digits, letters and dashes. */
static int valid_name(const char *address) {
    size_t i, n = strlen(NAME_PREFIX);
    if (address == NULL || strncmp(address, NAME_PREFIX, n) != 0 || strlen(address) > 96) return 0;
    for (i = n; address[i]; ++i) {
        char c = address[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-')) return 0;
    }
    return address[n] != '\0';
}

static int32_t events(shm_os_region *r, const char *name, int create, SECURITY_ATTRIBUTES *sa,
                      ipcb_error *error) {
    int i;
    for (i = 0; i < SHM_OS_WORDS; ++i) {
        char event_name[128];
        snprintf(event_name, sizeof event_name, "%s-e%d", name, i);
        r->events[i] = create ? CreateEventA(sa, FALSE, FALSE, event_name)
                              : OpenEventA(SYNCHRONIZE | EVENT_MODIFY_STATE, FALSE, event_name);
        if (r->events[i] == NULL)
            return create ? win_fail(error, GetLastError(), "CreateEvent %s", event_name)
                          : ipcb_fail(error, IPCB_E_BAD_ADDRESS, (int)GetLastError(),
                                      "shm.ring: the ring's event %s is gone", event_name);
        if (create && GetLastError() == ERROR_ALREADY_EXISTS)
            return ipcb_fail(error, IPCB_E_SYSTEM, 0, "shm.ring: %s already exists", event_name);
    }
    return IPCB_OK;
}

int32_t shm_os_create(shm_os_region *r, size_t size, char *address, size_t cap, ipcb_error *error) {
    SECURITY_ATTRIBUTES sa;
    char random[33];
    int32_t s;
    memset(r, 0, sizeof *r);
    if ((s = win_random_hex(random, error)) != IPCB_OK) return s;
    snprintf(address, cap, NAME_PREFIX "%lu-%s", (unsigned long)GetCurrentProcessId(), random);
    if ((s = win_owner_only(&sa, error)) != IPCB_OK) return s;
    r->mapping = CreateFileMappingA(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE,
                                    (DWORD)((unsigned long long)size >> 32), (DWORD)size, address);
    if (r->mapping == NULL) {
        win_free_owner_only(&sa);
        return win_fail(error, GetLastError(), "CreateFileMapping %s (%llu B)", address,
                        (unsigned long long)size);
    }
    if (GetLastError() == ERROR_ALREADY_EXISTS) { /* never reuse what someone else made */
        win_free_owner_only(&sa);
        return ipcb_fail(error, IPCB_E_SYSTEM, 0, "shm.ring: %s already exists", address);
    }
    s = events(r, address, 1, &sa, error);
    win_free_owner_only(&sa);
    if (s != IPCB_OK) return s;
    r->base = MapViewOfFile(r->mapping, FILE_MAP_ALL_ACCESS, 0, 0, size);
    if (r->base == NULL) return win_fail(error, GetLastError(), "MapViewOfFile %s", address);
    r->size = size;
    return IPCB_OK; /* pagefile-backed pages start zeroed */
}

int32_t shm_os_attach(shm_os_region *r, const char *address, size_t min_size, ipcb_error *error) {
    MEMORY_BASIC_INFORMATION info;
    int32_t s;
    memset(r, 0, sizeof *r);
    if (!valid_name(address))
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                         "shm.ring address '%s' is not a ring name this plugin makes "
                         "(" NAME_PREFIX "...)",
                         address ? address : "(null)");
    r->mapping = OpenFileMappingA(FILE_MAP_ALL_ACCESS, FALSE, address);
    if (r->mapping == NULL)
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, (int)GetLastError(),
                         "shm.ring address '%s' is not the ring of a live process", address);
    if ((s = events(r, address, 0, NULL, error)) != IPCB_OK) return s;
    r->base = MapViewOfFile(r->mapping, FILE_MAP_ALL_ACCESS, 0, 0, 0);
    if (r->base == NULL) return win_fail(error, GetLastError(), "MapViewOfFile %s", address);
    if (VirtualQuery(r->base, &info, sizeof info) == 0 || info.RegionSize < min_size)
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0, "shm.ring address '%s' is too small",
                         address);
    r->size = info.RegionSize;
    return IPCB_OK;
}

void shm_os_release(shm_os_region *r) {
    int i;
    if (r->base != NULL) UnmapViewOfFile(r->base);
    if (r->mapping != NULL) CloseHandle(r->mapping);
    for (i = 0; i < SHM_OS_WORDS; ++i)
        if (r->events[i] != NULL) CloseHandle(r->events[i]);
    memset(r, 0, sizeof *r);
}

int shm_os_wait(shm_os_region *r, _Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    int i = word_index(r, word);
    DWORD ms = (DWORD)((timeout_ns + 999999) / 1000000);
    if (atomic_load_explicit(word, memory_order_acquire) != expected) return 0;
    if (i < 0) {
        Sleep(ms);
        return 1;
    }
    return WaitForSingleObject(r->events[i], ms) == WAIT_TIMEOUT;
}

void shm_os_wake(shm_os_region *r, _Atomic uint32_t *word) {
    int i = word_index(r, word);
    if (i >= 0) SetEvent(r->events[i]);
}

int32_t shm_os_current_cpu(void) {
    return (int32_t)GetCurrentProcessorNumber();
}

/* FlushProcessWriteBuffers reaches this process's threads only, not the peer's: the sides
 * always fence (no lazy publishing) on Windows. */
int shm_os_barrier_register(void) {
    return 0;
}

void shm_os_remote_barrier(void) {}

int32_t shm_os_self_pid(void) {
    return (int32_t)GetCurrentProcessId();
}

int shm_os_process_gone(int32_t pid) {
    HANDLE h;
    int gone;
    if (pid <= 0) return 0;
    h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)pid);
    if (h == NULL) return GetLastError() == ERROR_INVALID_PARAMETER; /* no such process */
    gone = WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
    CloseHandle(h);
    return gone;
}
