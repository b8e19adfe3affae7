/* A library whose one exported function reaches every public struct of the SDK header, so that
 * abidw records their layout: tests/abi/check_abi_baseline.sh compares it with the committed
 * baseline sdk/abi/ipcbench-<major>.<minor>.abi. */
#include "ipcbench/transport.h"

IPCB_EXPORT uint32_t ipcb_abi_probe(const ipcb_plugin *plugin, const ipcb_transport *transport,
                                    const ipcb_open_params *params, const ipcb_host *host,
                                    const ipcb_error *error, const ipcb_kv *kv,
                                    const ipcb_option_desc *option, ipcb_setting_sink sink,
                                    ipcb_plugin_entry_fn entry, ipcb_endpoint *endpoint,
                                    const ipcb_event_source *source,
                                    const ipcb_completion *completion,
                                    ipcb_completion_queue *queue);

IPCB_EXPORT uint32_t ipcb_abi_probe(const ipcb_plugin *plugin, const ipcb_transport *transport,
                                    const ipcb_open_params *params, const ipcb_host *host,
                                    const ipcb_error *error, const ipcb_kv *kv,
                                    const ipcb_option_desc *option, ipcb_setting_sink sink,
                                    ipcb_plugin_entry_fn entry, ipcb_endpoint *endpoint,
                                    const ipcb_event_source *source,
                                    const ipcb_completion *completion,
                                    ipcb_completion_queue *queue) {
    (void)kv;
    (void)option;
    (void)sink;
    (void)entry;
    (void)endpoint;
    (void)queue;
    return plugin->struct_size + transport->struct_size + params->struct_size + host->struct_size +
           error->struct_size + source->struct_size + completion->op;
}
