/* pipe.named (pipe_named_windows.c): the Windows named pipe transport's functions. */
#ifndef IPCB_PIPE_NAMED_WINDOWS_H
#define IPCB_PIPE_NAMED_WINDOWS_H

#include "ipcbench/transport.h"

#define PIPE_NAMED_OPTION_COUNT 3u
extern const ipcb_option_desc pipe_named_options[PIPE_NAMED_OPTION_COUNT];

int32_t IPCB_CALL pipe_named_open(const ipcb_open_params *p, ipcb_endpoint **out,
                                  ipcb_error *error);
int32_t IPCB_CALL pipe_named_export_address(ipcb_endpoint *ep, char *buf, size_t cap,
                                            ipcb_error *error);
int32_t IPCB_CALL pipe_named_connect(ipcb_endpoint *ep, int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL pipe_named_send(ipcb_endpoint *ep, const void *buf, size_t len,
                                  int64_t timeout_ns, ipcb_error *error);
int32_t IPCB_CALL pipe_named_recv(ipcb_endpoint *ep, void *buf, size_t cap, size_t *len,
                                  int64_t timeout_ns, ipcb_error *error);
void IPCB_CALL pipe_named_close(ipcb_endpoint *ep);
int32_t IPCB_CALL pipe_named_submit_send(ipcb_completion_queue *q, ipcb_endpoint *ep,
                                         const void *buf, size_t len, uint64_t user_data,
                                         ipcb_error *error);
int32_t IPCB_CALL pipe_named_submit_recv(ipcb_completion_queue *q, ipcb_endpoint *ep, void *buf,
                                         size_t cap, uint64_t user_data, ipcb_error *error);
void IPCB_CALL pipe_named_query_settings(ipcb_endpoint *ep, ipcb_setting_sink sink, void *context);

#endif
