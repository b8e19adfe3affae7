/* Option values for the built-in plugins on every system (compiled into each plugin, never
 * exported): byte counts, booleans, and the check that every key given is one the transport
 * declares. */
#ifndef IPCB_PLUGIN_OPTIONS_H
#define IPCB_PLUGIN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "ipcbench/transport.h"

/* Parses "65536", "64K", "1M" (binary multiples) into *out; 0 on success. */
int plugin_parse_bytes(const char *text, uint64_t max, uint64_t *out);
/* Parses "1", "0", "true", "false", "on", "off", "yes", "no"; 0 on success. */
int plugin_parse_bool(const char *text, int *out);

/* Checks params' option keys against a NULL-terminated list; IPCB_E_UNKNOWN_OPTION naming the
 * first unknown key and listing the known ones. */
int32_t plugin_check_option_keys(const ipcb_open_params *params, const ipcb_option_desc *known,
                                 uint32_t known_count, const char *transport_id, ipcb_error *error);
/* The value of option `key`, or NULL when the user did not set it. */
const char *plugin_option(const ipcb_open_params *params, const char *key);

#endif
