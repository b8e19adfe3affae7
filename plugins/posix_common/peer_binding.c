#include "peer_binding.h"

#include <stdio.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#endif

#include "inet_address.h"
#include "ipcbench/error_format.h"

int32_t peer_binding_set(struct peer_binding *b, const char *id, const char *peer_host,
                         const uint8_t *key, uint32_t key_len, ipcb_error *error) {
    memset(b, 0, sizeof *b);
    if (key == NULL || key_len < IPCB_BINDING_KEY_MIN || key_len > IPCB_BINDING_KEY_MAX)
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: a binding key is %d to %d bytes, not %u",
                         id, IPCB_BINDING_KEY_MIN, IPCB_BINDING_KEY_MAX, (unsigned)key_len);
    if (peer_host == NULL || peer_host[0] == '\0') {
        b->any_host = 1;
    } else if (inet_pton(AF_INET, peer_host, b->host) == 1) {
        b->family = AF_INET;
    } else if (inet_pton(AF_INET6, peer_host, b->host) == 1) {
        b->family = AF_INET6;
    } else {
        return ipcb_fail(error, IPCB_E_INVALID, 0, "%s: peer host '%.64s' is no numeric address",
                         id, peer_host);
    }
    memcpy(b->key, key, key_len);
    b->key_len = key_len;
    b->set = 1;
    return IPCB_OK;
}

int peer_binding_host_matches(const struct peer_binding *b, const struct sockaddr *from) {
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (b->any_host) return 1;
    if (from->sa_family == AF_INET) {
        const unsigned char *a =
            (const unsigned char *)&((const struct sockaddr_in *)from)->sin_addr;
        if (b->family == AF_INET) return memcmp(a, b->host, 4) == 0;
        return memcmp(b->host, mapped, 12) == 0 && memcmp(a, b->host + 12, 4) == 0;
    }
    if (from->sa_family == AF_INET6) {
        const unsigned char *a =
            (const unsigned char *)&((const struct sockaddr_in6 *)from)->sin6_addr;
        if (b->family == AF_INET6) return memcmp(a, b->host, 16) == 0;
        return memcmp(a, mapped, 12) == 0 && memcmp(a + 12, b->host, 4) == 0;
    }
    return 0;
}

int peer_binding_presented(const struct peer_binding *b, const char *magic, size_t magic_len,
                           const unsigned char *got, size_t len) {
    unsigned char diff = 0;
    size_t i;
    if (len != magic_len + b->key_len) return 0;
    for (i = 0; i < magic_len; ++i) diff |= (unsigned char)(got[i] ^ (unsigned char)magic[i]);
    for (i = 0; i < b->key_len; ++i) diff |= (unsigned char)(got[magic_len + i] ^ b->key[i]);
    return diff == 0;
}

size_t peer_binding_hello(const struct peer_binding *b, const char *magic, size_t magic_len,
                          unsigned char *out, size_t cap) {
    if (magic_len + b->key_len > cap) return 0;
    memcpy(out, magic, magic_len);
    memcpy(out + magic_len, b->key, b->key_len);
    return magic_len + b->key_len;
}

void peer_binding_log_refusal(const ipcb_host *host, const char *id, const struct sockaddr *from,
                              const char *why) {
    char where[96] = "?", line[256];
    if (host == NULL || host->log == NULL) return;
    inet_address_format(from, where, sizeof where);
    snprintf(line, sizeof line, "%s: refused %s: %s (the endpoint is bound to one peer)", id, where,
             why);
    host->log(host, IPCB_LOG_WARN, line);
}
