/* "ipcb.peer-binding/1" (sdk/include/ipcbench/transport.h) for the built-in network transports:
 * who an endpoint's one peer is (its address, without the port) and the key it must present. */
#ifndef IPCB_PEER_BINDING_H
#define IPCB_PEER_BINDING_H

#include "ipcbench/transport.h"
#include "socket_compat.h"

struct peer_binding {
    int set;      /* bind_peer was called */
    int any_host; /* no peer_host: the key alone decides */
    int family;   /* AF_INET or AF_INET6 */
    unsigned char host[16];
    unsigned char key[IPCB_BINDING_KEY_MAX];
    uint32_t key_len;
};

/* Records the binding; IPCB_E_INVALID naming what is wrong (a host that is no numeric address, a
 * key of the wrong length). */
int32_t peer_binding_set(struct peer_binding *b, const char *id, const char *peer_host,
                         const uint8_t *key, uint32_t key_len, ipcb_error *error);
/* Whether a connection or datagram from `from` may be the peer (a v4-mapped IPv6 address is its
 * IPv4 address). */
int peer_binding_host_matches(const struct peer_binding *b, const struct sockaddr *from);
/* Whether `got` (len bytes) is `magic` (magic_len bytes) followed by the key, compared over every
 * byte whatever differs first. */
int peer_binding_presented(const struct peer_binding *b, const char *magic, size_t magic_len,
                           const unsigned char *got, size_t len);
/* `magic` then the key, into out (cap bytes): the length written, 0 if it does not fit. */
size_t peer_binding_hello(const struct peer_binding *b, const char *magic, size_t magic_len,
                          unsigned char *out, size_t cap);
/* A refused candidate, logged through the host (the address only, never the key). */
void peer_binding_log_refusal(const ipcb_host *host, const char *id, const struct sockaddr *from,
                              const char *why);

#endif
