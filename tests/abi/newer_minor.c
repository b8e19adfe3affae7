/* A plugin from the future: built against a hypothetical ABI 1.7 whose ipcb_plugin and
 * ipcb_transport grew new members at the end. A 1.0 host must accept it and ignore the tail. */
#define MY_PLUGIN_NAME "future"
#define ipcb_plugin_entry template_plugin_entry
#include "my_transport.c"
#undef ipcb_plugin_entry

typedef struct future_transport {
    ipcb_transport v1;
    uint64_t added_in_1_3;             /* members a 1.0 host does not know */
    const void *(*added_in_1_7)(void); /* must never be called by it */
} future_transport;

typedef struct future_plugin {
    ipcb_plugin v1;
    uint64_t added_in_1_5;
} future_plugin;

static future_transport future_stream;
static const ipcb_transport *const future_transports[] = {&future_stream.v1};
static future_plugin future;

IPCB_EXPORT const ipcb_plugin *IPCB_CALL ipcb_plugin_entry(const ipcb_host *host,
                                                           ipcb_error *error) {
    future_stream.v1 = my_stream;
    future_stream.v1.struct_size = sizeof future_stream;
    future_stream.added_in_1_3 = 0xdeadbeef;
    future_stream.added_in_1_7 = 0;
    future.v1 = *template_plugin_entry(host, error);
    future.v1.struct_size = sizeof future;
    future.v1.abi_version = ((uint32_t)1 << 16) | 7u;
    future.v1.transports = future_transports;
    future.added_in_1_5 = 42;
    return &future.v1;
}
