/* The pipe plugin's entry point: pipe.fifo and pipe.anon. */
#include "ipcbench/transport.h"

extern const ipcb_transport pipe_fifo_transport;
extern const ipcb_transport pipe_anon_transport;

static const ipcb_transport *const pipe_transports[] = {&pipe_fifo_transport, &pipe_anon_transport};

static const ipcb_plugin pipe_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "pipe",
    .version = "1.2.0",
    .description = "POSIX pipes: named (FIFO) and anonymous",
    .transport_count = 2,
    .reserved0 = 0,
    .transports = pipe_transports,
    .shutdown = 0,
};

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    (void)host;
    (void)error;
    return &pipe_plugin;
}
