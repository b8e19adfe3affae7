// Built as C++17 with -Wall -Wextra -pedantic -Werror: the SDK header is valid C++ too.
#include <cstdio>

#include "ipcbench/error_format.h"
#include "ipcbench/transport.h"
#include "layout_pins.h"

int main() {
    static_assert(IPCB_ABI_MAJOR == 1, "this check is for ABI 1");
    ipcb_error e{};
    e.struct_size = sizeof e;
    if (ipcb_fail_errno(&e, 2, "open %s", "/x") != IPCB_E_SYSTEM) return 1;
    std::printf("C++ header check: %s\n", e.message);
    return 0;
}
