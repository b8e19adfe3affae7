/* The mq plugin: mq.sysv and mq.posix. The entry reads this machine's queue limits into the
 * tables, so `ipchost --list` shows them and sizes above kernel.msgmax are skipped with a reason.
 */
#include "ipcbench/transport.h"
#include "mq_transports.h"

static const ipcb_transport *const mq_transports[] = {&mq_sysv_transport, &mq_posix_transport};

static const ipcb_plugin mq_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "mq",
    .version = "1.0.0",
    .description = "message queues: System V and POSIX",
    .transport_count = 2,
    .reserved0 = 0,
    .transports = mq_transports,
    .shutdown = 0,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    mq_sysv_describe_limits();
    mq_posix_describe_limits();
    return &mq_plugin;
}
