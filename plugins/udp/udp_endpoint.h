#ifndef IPCB_UDP_ENDPOINT_H
#define IPCB_UDP_ENDPOINT_H

#include "ipcbench/transport.h"

/* max_size: the protocol's largest datagram (0 = only the socket buffer limits it). */
int32_t udp_open(const ipcb_open_params *params, const char *id, int is_unix,
                 const ipcb_option_desc *options, uint32_t option_count, uint64_t max_size,
                 ipcb_endpoint **out, ipcb_error *error);
int32_t IPCB_CALL udp_export_address(ipcb_endpoint *ep, char *buf, size_t cap, ipcb_error *error);
int32_t IPCB_CALL udp_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL udp_send(ipcb_endpoint *ep, const void *buf, size_t len, int64_t timeout_ns,
                           ipcb_error *error);
int32_t IPCB_CALL udp_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                           int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL udp_close(ipcb_endpoint *ep);
#ifndef _WIN32 /* sendmmsg, recvmmsg */
int32_t IPCB_CALL udp_send_batch(ipcb_endpoint *ep, const ipcb_msg *msgs, uint32_t count,
                                 uint32_t *sent, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL udp_recv_batch(ipcb_endpoint *ep, ipcb_msg *msgs, uint32_t count,
                                 uint32_t *received, int64_t timeout_ns, ipcb_error *error);
#endif
int32_t IPCB_CALL udp_event_source(ipcb_endpoint *ep, ipcb_event_source *out, ipcb_error *error);
int32_t IPCB_CALL udp_try_send(ipcb_endpoint *ep, const void *buf, size_t len, size_t *sent,
                               ipcb_error *error);
int32_t IPCB_CALL udp_try_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                               ipcb_error *error);
void IPCB_CALL udp_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context);
int32_t IPCB_CALL udp_remove_address(const char *address, ipcb_error *error);
/* "ipcb.peer-binding/1" for udp.inet */
const void *IPCB_CALL udp_get_extension(const char *id);

#endif
