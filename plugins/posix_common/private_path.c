#define _GNU_SOURCE
#include "private_path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ipcbench/error_format.h"

int32_t private_folder(const char *runtime_dir, const char *kind, char *owned_dir, size_t owned_cap,
                       const char **dir, ipcb_error *error) {
    const char *tmp = getenv("TMPDIR");
    owned_dir[0] = '\0';
    if (runtime_dir != NULL && runtime_dir[0] != '\0') {
        *dir = runtime_dir;
        return IPCB_OK;
    }
    if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
    if ((size_t)snprintf(owned_dir, owned_cap, "%s/ipcbench-%s-XXXXXX", tmp, kind) >= owned_cap) {
        owned_dir[0] = '\0';
        return ipcb_fail(error, IPCB_E_INVALID, 0, "TMPDIR '%s' is too long; set a shorter one",
                         tmp);
    }
    if (mkdtemp(owned_dir) == NULL) {
        const int e = errno;
        owned_dir[0] = '\0';
        return ipcb_fail_errno(error, e, "mkdtemp in %s", tmp);
    }
    *dir = owned_dir;
    return IPCB_OK;
}

int32_t private_object_path(const char *dir, const char *prefix, unsigned *counter, char *path,
                            size_t path_cap, const char *limit, ipcb_error *error) {
    const unsigned n = __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
    if ((size_t)snprintf(path, path_cap, "%s/%s-%ld-%u", dir, prefix, (long)getpid(), n) < path_cap)
        return IPCB_OK;
    path[0] = '\0';
    return ipcb_fail(error, IPCB_E_INVALID, 0,
                     "a path in '%s' exceeds %s; set TMPDIR to a shorter directory", dir, limit);
}
