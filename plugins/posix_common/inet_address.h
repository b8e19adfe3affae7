/* "127.0.0.1:5000" and "[::1]:5000" <-> sockaddr, numeric hosts only (no DNS in a benchmark). */
#ifndef IPCB_INET_ADDRESS_H
#define IPCB_INET_ADDRESS_H

#include <stddef.h>

#include "ipcbench/transport.h"
#include "socket_compat.h"

/* 0 on success. */
int inet_address_parse(const char *text, struct sockaddr_storage *out, socklen_t *out_len);
/* Writes "host:port" or "[v6]:port"; a wildcard host becomes loopback, so a local peer can use
 * the address as it is. */
void inet_address_format(const struct sockaddr *addr, char *buf, size_t cap);

#ifndef _WIN32
/* An existing Unix socket path as a connector's address; IPCB_E_BAD_ADDRESS naming it otherwise. */
int32_t unix_address_parse(const char *transport_id, const char *text, struct sockaddr_storage *out,
                           socklen_t *out_len, ipcb_error *error);
#endif

#endif
