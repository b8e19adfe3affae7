/* Built with -std=c99 -Wall -Wextra -pedantic -Werror: the SDK header is valid C99, and its
 * layout matches the pins. Running it checks the helper macros at run time too. */
#include <stdio.h>

#include "ipcbench/error_format.h"
#include "ipcbench/transport.h"
#include "layout_pins.h"

int main(void) {
    ipcb_transport t;
    ipcb_error e;
    t.struct_size = (uint32_t)offsetof(ipcb_transport, get_extension);
    if (IPCB_HAS_FIELD(&t, ipcb_transport, get_extension)) return 1;
    t.struct_size = sizeof t;
    if (!IPCB_HAS_FIELD(&t, ipcb_transport, get_extension)) return 2;
    if (IPCB_ABI_VERSION_MAJOR(IPCB_ABI_VERSION) != IPCB_ABI_MAJOR) return 3;
    if (ipcb_fail(&e, IPCB_E_TOO_BIG, 0, "limit %d", 8192) != IPCB_E_TOO_BIG) return 4;
    if (e.message[0] != 'l') return 5;
    printf("C99 header check: %s\n", ipcb_status_name(IPCB_E_TIMEOUT));
    return 0;
}
