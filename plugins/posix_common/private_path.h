/* Private names for the objects a POSIX plugin creates in the file system (a Unix socket's
 * file, a FIFO), in one place for socket.unix/seqpacket, udp.unix and pipe.fifo. */
#ifndef IPCB_PRIVATE_PATH_H
#define IPCB_PRIVATE_PATH_H

#include <stddef.h>

#include "ipcbench/transport.h"

/* Where this process's objects of one kind go: runtime_dir when the host gave one (its private
 * run folder, 0700), otherwise a fresh folder that mkdtemp makes (0700) under $TMPDIR or /tmp,
 * named ipcbench-KIND-XXXXXX, written to owned_dir (else owned_dir[0] is 0): the caller removes
 * it with rmdir once its object is unlinked. *dir points at the folder to use. */
int32_t private_folder(const char *runtime_dir, const char *kind, char *owned_dir, size_t owned_cap,
                       const char **dir, ipcb_error *error);

/* DIR/PREFIX-PID-N (N from *counter, atomically), failing with a message that names `limit`
 * (e.g. "the 107-byte sun_path limit") and TMPDIR when it does not fit path_cap. */
int32_t private_object_path(const char *dir, const char *prefix, unsigned *counter, char *path,
                            size_t path_cap, const char *limit, ipcb_error *error);

#endif
