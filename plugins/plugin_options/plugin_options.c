#include "plugin_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcbench/error_format.h"

int plugin_parse_bytes(const char *text, uint64_t max, uint64_t *out) {
    char *end = NULL;
    unsigned long long value;
    if (text == NULL || text[0] < '0' || text[0] > '9') return -1;
    errno = 0;
    value = strtoull(text, &end, 10);
    if (errno != 0 || end == text) return -1;
    if (*end == 'K' || *end == 'k') {
        value *= 1024ull;
        ++end;
    } else if (*end == 'M' || *end == 'm') {
        value *= 1024ull * 1024ull;
        ++end;
    }
    if (*end != '\0' || value == 0 || value > max) return -1;
    *out = value;
    return 0;
}

int plugin_parse_bool(const char *text, int *out) {
    if (text == NULL) return -1;
    if (!strcmp(text, "1") || !strcmp(text, "true") || !strcmp(text, "on") ||
        !strcmp(text, "yes")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(text, "0") || !strcmp(text, "false") || !strcmp(text, "off") ||
        !strcmp(text, "no")) {
        *out = 0;
        return 0;
    }
    return -1;
}

int32_t plugin_check_option_keys(const ipcb_open_params *params, const ipcb_option_desc *known,
                                 uint32_t known_count, const char *transport_id,
                                 ipcb_error *error) {
    uint32_t i, k;
    for (i = 0; i < params->option_count; ++i) {
        const char *key = params->options[i].key;
        int found = 0;
        for (k = 0; k < known_count && !found; ++k) found = strcmp(key, known[k].key) == 0;
        if (!found) {
            char list[160] = "";
            size_t used = 0;
            for (k = 0; k < known_count && used < sizeof list; ++k)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                         known[k].key);
            return ipcb_fail(error, IPCB_E_UNKNOWN_OPTION, 0,
                             "unknown option '%s' for %s; known: %s", key, transport_id,
                             known_count ? list : "none");
        }
    }
    return IPCB_OK;
}

const char *plugin_option(const ipcb_open_params *params, const char *key) {
    uint32_t i;
    for (i = 0; i < params->option_count; ++i)
        if (strcmp(params->options[i].key, key) == 0) return params->options[i].value;
    return NULL;
}
