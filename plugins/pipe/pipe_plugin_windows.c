/* The pipe plugin on Windows: pipe.named. (pipe.anon is not offered there: an anonymous pipe
 * handle would have to be duplicated into a peer process the plugin does not know, which the
 * two-process model, where each side only gets the other's address string, cannot do without a
 * broker; docs/platforms.md.) */
#include "ipcbench/transport.h"
#include "pipe_named_windows.h"
#include "win_iocp.h"

static const ipcb_transport named_transport = {
    .struct_size = sizeof(ipcb_transport),
    .option_count = PIPE_NAMED_OPTION_COUNT,
    .id = "pipe.named",
    .description =
        "Windows named pipe (\\\\.\\pipe\\ipcbench-..., current user only, first "
        "instance), duplex; byte or message mode",
    .caps = IPCB_CAP_STREAM | IPCB_CAP_RELIABLE | IPCB_CAP_ORDERED | IPCB_CAP_DUPLEX |
            IPCB_CAP_CLOSE_NOTIFY,
    .max_message_size = 0,
    .options = pipe_named_options,
    .open = pipe_named_open,
    .export_address = pipe_named_export_address,
    .connect = pipe_named_connect,
    .send = pipe_named_send,
    .recv = pipe_named_recv,
    .close = pipe_named_close,
    .query_settings = pipe_named_query_settings,
    .remove_address = 0, /* a named pipe vanishes with its last handle */
    .get_extension = 0,
    /* since 1.2: completion through an I/O completion port */
    .cq_open = win_cq_open,
    .submit_send = pipe_named_submit_send,
    .submit_recv = pipe_named_submit_recv,
    .cq_wait = win_cq_wait,
    .cq_close = win_cq_close,
};

static const ipcb_transport *const pipe_transports[] = {&named_transport};

static const ipcb_plugin pipe_plugin = {
    .struct_size = sizeof(ipcb_plugin),
    .abi_version = IPCB_ABI_VERSION,
    .name = "pipe",
    .version = "1.1.0",
    .description = "Windows pipes: named",
    .transport_count = 1,
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
