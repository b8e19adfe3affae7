#include "inet_address.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/un.h>
#endif

#include "ipcbench/error_format.h"

int inet_address_parse(const char *text, struct sockaddr_storage *out, socklen_t *out_len) {
    char host[64];
    const char *port_text;
    char *end = NULL;
    long port;
    if (text == NULL) return -1;
    memset(out, 0, sizeof *out);
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        size_t n;
        if (close == NULL || close[1] != ':') return -1;
        n = (size_t)(close - text - 1);
        if (n == 0 || n >= sizeof host) return -1;
        memcpy(host, text + 1, n);
        host[n] = '\0';
        port_text = close + 2;
    } else {
        const char *colon = strrchr(text, ':');
        size_t n;
        if (colon == NULL) return -1;
        n = (size_t)(colon - text);
        if (n == 0 || n >= sizeof host) return -1;
        memcpy(host, text, n);
        host[n] = '\0';
        port_text = colon + 1;
    }
    port = strtol(port_text, &end, 10);
    if (port_text[0] == '\0' || *end != '\0' || port < 0 || port > 65535) return -1;
    {
        struct sockaddr_in *v4 = (struct sockaddr_in *)out;
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
        if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
            v4->sin_family = AF_INET;
            v4->sin_port = htons((unsigned short)port);
            *out_len = sizeof *v4;
            return 0;
        }
        if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
            v6->sin6_family = AF_INET6;
            v6->sin6_port = htons((unsigned short)port);
            *out_len = sizeof *v6;
            return 0;
        }
    }
    return -1;
}

#ifndef _WIN32
int32_t unix_address_parse(const char *transport_id, const char *text, struct sockaddr_storage *out,
                           socklen_t *out_len, ipcb_error *error) {
    struct sockaddr_un *un = (struct sockaddr_un *)out;
    struct stat st;
    if (text == NULL || text[0] != '/' || strlen(text) >= sizeof un->sun_path ||
        stat(text, &st) != 0 || !S_ISSOCK(st.st_mode))
        return ipcb_fail(error, IPCB_E_BAD_ADDRESS, 0,
                         "%s address '%s' is not an existing Unix socket path", transport_id,
                         text ? text : "(null)");
    memset(out, 0, sizeof *out);
    un->sun_family = AF_UNIX;
    strcpy(un->sun_path, text);
    *out_len = sizeof *un;
    return IPCB_OK;
}

#endif

void inet_address_format(const struct sockaddr *addr, char *buf, size_t cap) {
    char host[INET6_ADDRSTRLEN] = "?";
    if (addr->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)addr;
        struct in_addr a = v4->sin_addr;
        if (a.s_addr == htonl(INADDR_ANY)) a.s_addr = htonl(INADDR_LOOPBACK);
        inet_ntop(AF_INET, &a, host, sizeof host);
        snprintf(buf, cap, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
    } else if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)addr;
        struct in6_addr a = v6->sin6_addr;
        if (IN6_IS_ADDR_UNSPECIFIED(&a)) a = in6addr_loopback;
        inet_ntop(AF_INET6, &a, host, sizeof host);
        snprintf(buf, cap, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
    } else {
        snprintf(buf, cap, "?");
    }
}
