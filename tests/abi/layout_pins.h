/* Layout of every public struct on LP64, pinned. A change here is an ABI break: it needs a new
 * major version, never an edit of these numbers. Shared by the C99 and C++ compile checks. */
#ifndef IPCB_LAYOUT_PINS_H
#define IPCB_LAYOUT_PINS_H

#include <stddef.h>

#include "ipcbench/transport.h"

#if defined(__cplusplus)
#define IPCB_PIN(cond, name) static_assert(cond, #name)
#else /* C99 has no _Static_assert: a negative array size fails the build */
#define IPCB_PIN(cond, name) typedef char ipcb_pin_##name[(cond) ? 1 : -1]
#endif

#if defined(__LP64__) || defined(_WIN64)
IPCB_PIN(sizeof(ipcb_error) == 264, error_size);
IPCB_PIN(offsetof(ipcb_error, message) == 8, error_message);
IPCB_PIN(sizeof(ipcb_kv) == 16, kv_size);
IPCB_PIN(sizeof(ipcb_option_desc) == 24, option_desc_size);
IPCB_PIN(sizeof(ipcb_open_params) == 56, open_params_size);
IPCB_PIN(offsetof(ipcb_open_params, options) == 16, open_params_options);
IPCB_PIN(offsetof(ipcb_open_params, address) == 24, open_params_address);
IPCB_PIN(offsetof(ipcb_open_params, runtime_dir) == 32, open_params_runtime_dir);
IPCB_PIN(offsetof(ipcb_open_params, max_message_size) == 40, open_params_max);
IPCB_PIN(offsetof(ipcb_open_params, host) == 48, open_params_host);
/* 120 in 1.0, 168 in 1.1, 232 in 1.2, and no more: the table is complete, new calls are
 * extensions (get_extension). A member appended here fails this pin on purpose. */
IPCB_PIN(sizeof(ipcb_transport) == 232, transport_size);
IPCB_PIN(offsetof(ipcb_transport, id) == 8, transport_id);
IPCB_PIN(offsetof(ipcb_transport, caps) == 24, transport_caps);
IPCB_PIN(offsetof(ipcb_transport, max_message_size) == 32, transport_max);
IPCB_PIN(offsetof(ipcb_transport, options) == 40, transport_options);
IPCB_PIN(offsetof(ipcb_transport, open) == 48, transport_open);
IPCB_PIN(offsetof(ipcb_transport, export_address) == 56, transport_export);
IPCB_PIN(offsetof(ipcb_transport, connect) == 64, transport_connect);
IPCB_PIN(offsetof(ipcb_transport, send) == 72, transport_send);
IPCB_PIN(offsetof(ipcb_transport, recv) == 80, transport_recv);
IPCB_PIN(offsetof(ipcb_transport, close) == 88, transport_close);
IPCB_PIN(offsetof(ipcb_transport, query_settings) == 96, transport_query);
IPCB_PIN(offsetof(ipcb_transport, remove_address) == 104, transport_remove);
IPCB_PIN(offsetof(ipcb_transport, get_extension) == 112, transport_ext);
/* since 1.1 */
IPCB_PIN(offsetof(ipcb_transport, borrow) == 120, transport_borrow);
IPCB_PIN(offsetof(ipcb_transport, publish) == 128, transport_publish);
IPCB_PIN(offsetof(ipcb_transport, take) == 136, transport_take);
IPCB_PIN(offsetof(ipcb_transport, release) == 144, transport_release);
IPCB_PIN(offsetof(ipcb_transport, send_batch) == 152, transport_send_batch);
IPCB_PIN(offsetof(ipcb_transport, recv_batch) == 160, transport_recv_batch);
/* since 1.2 */
IPCB_PIN(offsetof(ipcb_transport, event_source) == 168, transport_event_source);
IPCB_PIN(offsetof(ipcb_transport, try_send) == 176, transport_try_send);
IPCB_PIN(offsetof(ipcb_transport, try_recv) == 184, transport_try_recv);
IPCB_PIN(offsetof(ipcb_transport, cq_open) == 192, transport_cq_open);
IPCB_PIN(offsetof(ipcb_transport, submit_send) == 200, transport_submit_send);
IPCB_PIN(offsetof(ipcb_transport, submit_recv) == 208, transport_submit_recv);
IPCB_PIN(offsetof(ipcb_transport, cq_wait) == 216, transport_cq_wait);
IPCB_PIN(offsetof(ipcb_transport, cq_close) == 224, transport_cq_close);
IPCB_PIN(sizeof(ipcb_event_source) == 24, event_source_size);
IPCB_PIN(offsetof(ipcb_event_source, handle) == 8, event_source_handle);
IPCB_PIN(offsetof(ipcb_event_source, send_events) == 20, event_source_send_events);
IPCB_PIN(sizeof(ipcb_completion) == 24, completion_size);
IPCB_PIN(offsetof(ipcb_completion, status) == 16, completion_status);
IPCB_PIN(sizeof(ipcb_msg) == 16, msg_size);
IPCB_PIN(offsetof(ipcb_msg, len) == 8, msg_len);
IPCB_PIN(sizeof(ipcb_host) == 40, host_size);
IPCB_PIN(offsetof(ipcb_host, log) == 32, host_log);
IPCB_PIN(sizeof(ipcb_plugin) == 56, plugin_size);
IPCB_PIN(offsetof(ipcb_plugin, transport_count) == 32, plugin_count);
IPCB_PIN(offsetof(ipcb_plugin, transports) == 40, plugin_transports);
IPCB_PIN(offsetof(ipcb_plugin, shutdown) == 48, plugin_shutdown);
#endif

#endif
