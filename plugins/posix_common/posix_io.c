#define _GNU_SOURCE
#include "posix_io.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipcbench/error_format.h"

int64_t posix_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t posix_deadline(int64_t timeout_ns) {
    return timeout_ns < 0 ? -1 : posix_now_ns() + timeout_ns;
}

int64_t posix_left(int64_t deadline_ns) {
    int64_t left;
    if (deadline_ns < 0) return -1;
    left = deadline_ns - posix_now_ns();
    return left < 0 ? 0 : left;
}

int32_t posix_wait_fd(int fd, short events, int64_t deadline_ns, ipcb_error *error) {
    for (;;) {
        struct pollfd pfd;
        struct timespec ts;
        struct timespec *tsp = NULL;
        int rc;
        pfd.fd = fd;
        pfd.events = events;
        pfd.revents = 0;
        if (deadline_ns >= 0) {
            int64_t left = posix_left(deadline_ns);
            ts.tv_sec = (time_t)(left / 1000000000);
            ts.tv_nsec = (long)(left % 1000000000);
            tsp = &ts;
        }
        rc = ppoll(&pfd, 1, tsp, NULL);
        if (rc > 0) {
            if (pfd.revents & POLLNVAL)
                return ipcb_fail(error, IPCB_E_INVALID, EBADF, "descriptor is closed");
            return IPCB_OK;
        }
        if (rc == 0) return ipcb_fail(error, IPCB_E_TIMEOUT, 0, "timed out");
        if (errno != EINTR) return ipcb_fail_errno(error, errno, "ppoll");
    }
}

void posix_pause_us(long microseconds) {
    struct timespec ts;
    ts.tv_sec = microseconds / 1000000;
    ts.tv_nsec = (microseconds % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

int posix_parse_bytes(const char *text, uint64_t max, uint64_t *out) {
    char *end = NULL;
    unsigned long long value;
    if (text == NULL || text[0] < '0' || text[0] > '9') return -1;
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0 || end == text) return -1;
    if (*end == 'K' || *end == 'k') {
        value *= 1024ull;
        ++end;
    } else if (*end == 'M' || *end == 'm') {
        value *= 1024ull * 1024ull;
        ++end;
    }
    if (*end != '\0' || value == 0 || value > max) return -1;
    *out = value;
    return 0;
}

int posix_parse_bool(const char *text, int *out) {
    if (text == NULL) return -1;
    if (!strcmp(text, "1") || !strcmp(text, "true") || !strcmp(text, "on") ||
        !strcmp(text, "yes")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(text, "0") || !strcmp(text, "false") || !strcmp(text, "off") ||
        !strcmp(text, "no")) {
        *out = 0;
        return 0;
    }
    return -1;
}

long posix_read_proc_long(const char *path) {
    long value = -1;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%ld", &value) != 1) value = -1;
        fclose(f);
    }
    return value;
}

int32_t posix_check_option_keys(const ipcb_open_params *params, const ipcb_option_desc *known,
                                uint32_t known_count, const char *transport_id, ipcb_error *error) {
    uint32_t i, k;
    for (i = 0; i < params->option_count; ++i) {
        const char *key = params->options[i].key;
        int found = 0;
        for (k = 0; k < known_count && !found; ++k) found = strcmp(key, known[k].key) == 0;
        if (!found) {
            char list[160] = "";
            size_t used = 0;
            for (k = 0; k < known_count && used < sizeof list; ++k)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                         known[k].key);
            return ipcb_fail(error, IPCB_E_UNKNOWN_OPTION, 0,
                             "unknown option '%s' for %s; known: %s", key, transport_id,
                             known_count ? list : "none");
        }
    }
    return IPCB_OK;
}

const char *posix_option(const ipcb_open_params *params, const char *key) {
    uint32_t i;
    for (i = 0; i < params->option_count; ++i)
        if (strcmp(params->options[i].key, key) == 0) return params->options[i].value;
    return NULL;
}
